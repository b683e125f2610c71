/**
 * The OpenAI opt-in of a model config (parameters openai, openai_*): every problem at its
 * file:line:col, a chat template's at its character, in pbtxt and YAML; and the chat template
 * language itself.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatProblems, openAiDeclaration, parseConfigText, renderChatTemplate, validateConfig } from '../../src/config/index.js';
import { parseChatTemplate } from '../../src/config/chat-template.js';

const IO = [
  'input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]',
  'output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] }, { name: "embedding" data_type: TYPE_FP32 dims: [ 4 ] } ]',
];

function problems(lines: string[]): string {
  const parsed = parseConfigText(['name: "m"', 'backend: "typescript"', ...IO, ...lines, ''].join('\n'), 'm/config.pbtxt', 'pbtxt');
  return formatProblems(validateConfig(parsed));
}
const param = (k: string, v: string) => `parameters { key: "${k}" value { string_value: "${v}" } }`;

test('a valid declaration has no problem, and reads back with its defaults', () => {
  assert.equal(problems([param('openai', 'chat, completions,embeddings')]), '');
  const parsed = parseConfigText(['name: "m"', ...IO, param('openai', 'chat')].join('\n'), 'c.pbtxt', 'pbtxt');
  const d = openAiDeclaration(parsed.config)!;
  assert.deepEqual([...d.endpoints], ['chat']);
  assert.equal(d.textInput, 'text_input');
  assert.equal(renderChatTemplate(d.chatTemplate, [{ role: 'user', content: 'hi' }]), 'user: hi\nassistant:');
  assert.equal(openAiDeclaration(parseConfigText('name: "m"', 'c.pbtxt', 'pbtxt').config), undefined);
});

test('unknown endpoints, repeats and misspelt keys are refused where they are written', () => {
  const out = problems([param('openai', 'chat,embed,chat'), param('openai_text_ouput', 'x')]);
  assert.match(out, /m\/config\.pbtxt:6:19: error: .*parameters: unknown key 'openai_text_ouput'; did you mean 'openai_text_output'\?/);
  assert.match(out, /m\/config\.pbtxt:5:36: error: .*'embed' is not an OpenAI endpoint; list one or more of chat, completions, embeddings/);
  assert.match(out, /'chat' is listed twice/);
});

test('the tensors the endpoints need must exist with the right types', () => {
  assert.match(problems([param('openai', 'chat'), param('openai_text_input', 'prompt')]),
    /parameters\.openai_text_input names 'prompt', but the model has no input 'prompt' \(its inputs: text_input\)/);
  assert.match(problems([param('openai', 'embeddings'), param('openai_embedding_output', 'text_output')]),
    /the embedding output 'text_output' \(output\[0\]\) is TYPE_STRING; it must be a float type/);
  assert.match(problems([param('openai', 'chat'), param('openai_text_output', 'embedding')]),
    /the text output 'embedding' \(output\[1\]\) is TYPE_FP32; it must be TYPE_STRING/);
});

test('a chat template problem points at its character; one set without chat, or keys without openai, warn', () => {
  const out = problems([param('openai', 'chat'), param('openai_chat_template', 'x{% if a %}')]);
  // Line 6: `parameters { key: "openai_chat_template" value { string_value: "x{% if a %}" } }`; the tag is the 2nd character.
  const col = 'parameters { key: "openai_chat_template" value { string_value: "x'.length + 1;
  assert.match(out, new RegExp(`m/config\\.pbtxt:6:${col}: error: .*at character 2: '\\{% if a %\\}' is not supported`));
  assert.match(problems([param('openai', 'embeddings'), param('openai_chat_template', '{% for message in messages %}{% endfor %}')]),
    /warning: .*openai_chat_template has no effect: the model does not serve chat/);
  assert.match(problems([param('openai_text_input', 'text_input')]), /warning: .*no effect without parameter 'openai'/);
});

test('YAML declares it the same way', () => {
  const yaml = ['name: m', 'backend: typescript', 'input: [{ name: text_input, data_type: TYPE_STRING, dims: [1] }]',
    'output: [{ name: text_output, data_type: TYPE_STRING, dims: [1] }]', 'parameters:', '  openai: chat', '  openai_chat_template: "{{ message.role }}"', ''].join('\n');
  const out = formatProblems(validateConfig(parseConfigText(yaml, 'm/config.yaml', 'yaml')));
  assert.match(out, /m\/config\.yaml:7:\d+: error: .*'\{\{ message\.role \}\}' is outside \{% for message in messages %\}/);
});

test('the template language: loops, fields, and every refusal', () => {
  const t = parseChatTemplate('<s>{% for message in messages %}[{{ message.role }}]{{message.content}}\n{% endfor %}>');
  assert.ok('parts' in t);
  assert.equal(renderChatTemplate(t, [{ role: 'system', content: 'a' }, { role: 'user', content: 'b' }]), '<s>[system]a\n[user]b\n>');
  const refused: [string, RegExp][] = [
    ['{% for message in messages %}{% for message in messages %}{% endfor %}{% endfor %}', /loop inside a loop/],
    ['{% for message in messages %}', /has no \{% endfor %\}/],
    ['{% endfor %}', /without \{% for message in messages %\}/],
    ['{{ bos_token }}{% for message in messages %}{% endfor %}', /'\{\{ bos_token \}\}' is not supported/],
    ['{# note #}', /comments/],
    ['plain text only', /never writes the messages/],
  ];
  for (const [text, why] of refused) {
    const p = parseChatTemplate(text);
    assert.ok('offset' in p && why.test(p.message), `${text}: ${JSON.stringify(p)}`);
  }
});
