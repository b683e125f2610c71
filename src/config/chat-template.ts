/**
 * Chat templates of the OpenAI-compatible front end (config parameter `openai_chat_template`): the
 * text a model receives for a list of chat messages. A small subset of the Jinja spelling chat
 * templates are written in, so a simple one reads as usual and nothing else is half-understood:
 * text, `{% for message in messages %}` ... `{% endfor %}` (not nested), and inside a loop
 * `{{ message.role }}` and `{{ message.content }}`. Anything else is refused when the model loads,
 * at its offset in the template. Parsed once per model (load time), rendered per request.
 */

export interface ChatMessage { role: string; content: string }

type Part = { text: string } | { field: 'role' | 'content' } | { loop: Part[] };

export interface ChatTemplate { readonly parts: readonly Part[] }

/** A template that cannot be used, and where in its text (0-based offset). */
export interface ChatTemplateProblem { offset: number; message: string }

/**
 * docs/openai.md: "role: content" lines, then the line the model completes. Plain text, so a
 * model that was never trained on a template still sees who said what.
 */
export const DEFAULT_CHAT_TEMPLATE = '{% for message in messages %}{{ message.role }}: {{ message.content }}\n{% endfor %}assistant:';

const TAG = /\{\{-?\s*(.*?)\s*-?\}\}|\{%-?\s*(.*?)\s*-?%\}|\{#/gs;
const HOW = "a chat template may use only {% for message in messages %} ... {% endfor %}, and inside it {{ message.role }} and {{ message.content }}";

/** Parse a template, or say what is wrong and where. */
export function parseChatTemplate(text: string): ChatTemplate | ChatTemplateProblem {
  const top: Part[] = [];
  let loop: Part[] | undefined;
  let loopAt = 0;
  let last = 0;
  const add = (p: Part) => (loop ?? top).push(p);
  for (const m of text.matchAll(TAG)) {
    const at = m.index;
    if (at > last) add({ text: text.slice(last, at) });
    last = at + m[0].length;
    if (m[0] === '{#') return { offset: at, message: `comments ({# ... #}) are not supported; ${HOW}` };
    const expr = m[1];
    if (expr !== undefined) {
      const field = /^message\.(role|content)$/.exec(expr)?.[1] as 'role' | 'content' | undefined;
      if (!field) return { offset: at, message: `'{{ ${expr} }}' is not supported; ${HOW}` };
      if (!loop) return { offset: at, message: `'{{ ${expr} }}' is outside {% for message in messages %}` };
      add({ field });
      continue;
    }
    const stmt = m[2]!;
    if (/^for\s+message\s+in\s+messages$/.test(stmt)) {
      if (loop) return { offset: at, message: `a loop inside a loop is not supported; ${HOW}` };
      loop = [];
      loopAt = at;
    } else if (stmt === 'endfor') {
      if (!loop) return { offset: at, message: '{% endfor %} without {% for message in messages %}' };
      top.push({ loop });
      loop = undefined;
    } else {
      return { offset: at, message: `'{% ${stmt} %}' is not supported; ${HOW}` };
    }
  }
  if (loop) return { offset: loopAt, message: '{% for message in messages %} has no {% endfor %}' };
  if (last < text.length) top.push({ text: text.slice(last) });
  if (!top.some((p) => 'loop' in p)) return { offset: 0, message: `the template never writes the messages; ${HOW}` };
  return { parts: top };
}

export function isChatTemplateProblem(t: ChatTemplate | ChatTemplateProblem): t is ChatTemplateProblem {
  return 'offset' in t;
}

/** The prompt for `messages`. */
export function renderChatTemplate(template: ChatTemplate, messages: readonly ChatMessage[]): string {
  let out = '';
  const write = (parts: readonly Part[], message?: ChatMessage) => {
    for (const p of parts) {
      if ('text' in p) out += p.text;
      else if ('field' in p) out += message![p.field];
      else for (const m of messages) write(p.loop, m);
    }
  };
  write(template.parts);
  return out;
}
