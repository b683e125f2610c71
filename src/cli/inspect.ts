/** `tributary inspect DIR`: captured requests as a list, or one request as its tree of steps. */
import { Errors } from '../errors.js';
import { SOURCE_FLAGS, formatFlag, jsonText, loadCaptures, selectRequests } from './capture-source.js';
import { intFlag, parseFlags } from './flags.js';
import { listText, requestJson, requestSummary, treeText } from './inspect-format.js';

const HELP = `Usage: tributary inspect <capture-dir> [options]
       tributary inspect --redis <host>:<port> [--stream <key>] [options]

Show requests captured by 'tributary serve --capture-config': a list (newest last), or with --id
one request as a tree of its records (pipeline steps, map items, loop iterations, BLS calls) with
each one's inputs, outputs, timings and error.

Options:
  --id <id>              one request: its request id (or capture id); several captures of one id are all shown
  --model <model>        requests in which this model took part
  --step <step>          requests with a record of this step (a step name; 'name' also matches 'name#2')
  --failed               failed requests only
  --since <when>         requests since an ISO time or a span back from now (30s, 10m, 2h, 1d)
  --format <text|json>   text (default) or JSON
  --full                 every element of every tensor (default: the first 8, strings cut at 80 characters)
  --limit <n>            in the list, the newest n requests (default 100; 0 = all)
  --redis <host>:<port>  read the Redis stream instead of a directory (--stream <key>, default tributary:capture)
  --help, -h             print this help
`;

export async function inspect(argv: readonly string[]): Promise<number> {
  const { values: f, positionals } = parseFlags('inspect', argv, {
    ...SOURCE_FLAGS, step: { type: 'string' }, failed: { type: 'boolean' }, full: { type: 'boolean' }, limit: { type: 'string' },
  });
  if (f.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const format = formatFlag(f.format);
  const limit = intFlag('limit', f.limit, 100);
  const full = f.full === true;
  const loaded = await loadCaptures('inspect', positionals, f);
  if (loaded.unreadable > 0) process.stderr.write(`inspect: ${loaded.unreadable} line(s) of ${loaded.source} are not capture records and were skipped\n`);
  const step = f.step === undefined ? undefined : String(f.step);
  const chosen = selectRequests(loaded.requests, f).filter((r) => (!f.failed || r.failed)
    && (step === undefined || r.records.some((x) => x.step === step || x.step?.startsWith(`${step}#`) === true)));
  if (f.id !== undefined) {
    if (chosen.length === 0) throw Errors.captureNotFound(`with id '${String(f.id)}'`, loaded.source);
    if (format === 'json') process.stdout.write(jsonText(chosen.map((r) => requestJson(r, full))));
    else process.stdout.write(chosen.map((r) => treeText(r, full).join('\n')).join('\n\n') + '\n');
    return 0;
  }
  const shown = limit > 0 ? chosen.slice(-limit) : chosen;
  if (format === 'json') process.stdout.write(jsonText(shown.map(requestSummary)));
  else {
    const lines = listText(shown);
    if (shown.length < chosen.length) lines.unshift(`(the newest ${shown.length} of ${chosen.length}; --limit 0 shows all)`);
    process.stdout.write((lines.length ? lines.join('\n') : `no captured requests in ${loaded.source} match`) + '\n');
  }
  return 0;
}
