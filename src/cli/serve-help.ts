import type { FlagSpec } from './flags.js';
import { SERVE_FLAGS, type FlagKind, type ServeFlag } from './serve-flags.js';

const WIDTH = 100;
const COLUMN = 36;

const ARG: Record<FlagKind, string> = {
  string: ' <string>', bool: ' <bool>', int: ' <integer>', float: ' <number>', list: ' <string>', none: '',
};

/** The node:util parseArgs spec of `tributary serve`, from the flag table. */
export function serveFlagSpec(flags: readonly ServeFlag[] = SERVE_FLAGS): FlagSpec {
  const spec: FlagSpec = {};
  for (const f of flags) {
    if (f.kind === 'none') spec[f.name] = { type: 'boolean', ...(f.name === 'help' ? { short: 'h' } : {}) };
    else spec[f.name] = f.kind === 'list' ? { type: 'string', multiple: true } : { type: 'string' };
  }
  return spec;
}

/** One flag's description: its help, default, origin and, unless implemented, what happens to it. */
export function describeFlag(f: ServeFlag): string {
  let text = f.help;
  if (f.kind === 'list') text += ' (repeatable)';
  if (f.default !== undefined) text += ` (default ${f.default})`;
  if (f.origin === 'tributary') text += ' [tributary only]';
  if (f.status === 'no-effect') text += ` [no effect: ${f.reason}]`;
  if (f.status === 'refused') {
    const ok = f.accepts?.length ? `; ${f.accepts.map((v) => `--${f.name}=${v}`).join(', ')} accepted` : '';
    text += ` [refused: ${f.reason}${ok}]`;
  }
  return text;
}

function wrap(text: string, indent: number, first: number): string[] {
  const lines: string[] = [];
  let line = '';
  let room = WIDTH - first;
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = WIDTH - indent;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : ' '.repeat(indent) + l));
}

/** `tributary serve --help`, generated from the flag table, grouped as the table is. */
export function serveHelp(flags: readonly ServeFlag[] = SERVE_FLAGS): string {
  const out = [
    'Usage: tributary serve --model-repository=<dir> [options]',
    '',
    'Serve a model repository over HTTP (KServe v2 + Triton extensions), gRPC and Prometheus metrics.',
    "Flags take tritonserver's names, defaults and meanings; each takes --flag=value or --flag value.",
    'Every tritonserver flag is accepted: a flag marked [no effect] is validated and logged as changing',
    'nothing here; one marked [refused] stops the server with exit 2 unless given a value it accepts.',
  ];
  let group = '';
  for (const f of flags) {
    if (f.group !== group) {
      group = f.group;
      out.push('', `${group}:`);
    }
    const head = `  --${f.name}${ARG[f.kind]}`;
    const body = wrap(describeFlag(f), COLUMN, COLUMN);
    if (head.length < COLUMN - 1) out.push(head.padEnd(COLUMN) + body.join('\n'));
    else out.push(head, ' '.repeat(COLUMN) + body.join('\n'));
  }
  return out.join('\n') + '\n';
}
