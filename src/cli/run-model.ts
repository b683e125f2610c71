import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { Errors } from '../errors.js';
import { createLogger } from '../logger.js';
import { decodeInferRequest, encodeInferResponse, parseJsonExact } from '../protocol/index.js';
import { modelStepHints, shownPath } from '../repository/index.js';
import { createServer } from '../server/index.js';
import { BUILTIN_PIPELINES } from './builtin-pipelines.js';
import { applyFlagPolicy } from './flag-policy.js';
import { parseFlags } from './flags.js';
import { REPOSITORY_FLAGS, repositoryFlags, repositoryFlagsHelp } from './repository-flags.js';
import { serveFlagSpec } from './serve-help.js';

const runModelHelp = () => `Usage: tributary run-model <repository>/<model> --input <request.json> [--model-repository <dir>]...

Load the model in this process, run one request once, print each response's outputs as v2 JSON
(one line per response) and exit. <request.json> is a v2 inference request body, e.g. the
sample-request.json that new-model writes. Script errors print as file:line:col.

What loads: the model, and its pipeline steps (transitively) from the model's own repository and
every --model-repository; nothing else at start. A script's BLS calls name their models only when
they run, so a model a script calls is loaded when it is first called, from the same
repositories (a failed load fails that call, and is not retried). A pipeline of your own over
the built-in models:

  tributary run-model my-models/text_stats --model-repository pipelines --input request.json

Takes serve's repository flags, with the same meanings:

${repositoryFlagsHelp()}
`;

async function readRequest(file: string, model: string): Promise<ReturnType<typeof decodeInferRequest>['request']> {
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw Errors.runModelInput(file, e.code === 'ENOENT' ? 'no such file' : e.message);
  });
  let json: unknown;
  try {
    json = parseJsonExact(text);
  } catch (e) {
    throw Errors.runModelInput(file, `not JSON (${(e as Error).message})`);
  }
  return decodeInferRequest(json, { model }).request;
}

/**
 * A load failure as run-model shows it: without the model prefix the message already has, and each
 * unknown step model followed by where it is (the repositories searched, the one that has it).
 */
async function explained(model: string, modelDir: string, reason: string, repositories: readonly string[]): Promise<string> {
  let text = reason.replace(new RegExp(`^(failed to load '${escaped(model)}': |model '${escaped(model)}': )`), '');
  if (!text.includes('unknown model')) return text;
  for (const [step, hint] of await modelStepHints(modelDir, repositories, [BUILTIN_PIPELINES])) {
    text = text.replace(new RegExp(`unknown model '${escaped(step)}'[^\\n]*`, 'g'), (line) => line + hint);
  }
  return text;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function runModel(argv: readonly string[]): Promise<number> {
  const spec = serveFlagSpec(REPOSITORY_FLAGS);
  const { values, positionals } = parseFlags('run-model', argv, { ...spec, input: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (values.help || positionals.length !== 1 || values.input === undefined) {
    (values.help ? process.stdout : process.stderr).write(runModelHelp());
    return values.help ? 0 : 2;
  }
  applyFlagPolicy(values, createLogger('run-model'), REPOSITORY_FLAGS);
  const flags = repositoryFlags(values);
  const modelDir = resolve(positionals[0]!);
  const model = basename(modelDir);
  // The model's own repository first; one given again by a flag is searched once.
  const repositories = [...new Map([dirname(modelDir), ...flags.repositories].map((r) => [resolve(r), r])).values()];
  const request = await readRequest(String(values.input), model);
  // Before any model loads: a mistyped model directory is a one-line error, not a load failure.
  if (!(await stat(modelDir).catch(() => undefined))?.isDirectory()) throw Errors.runModelNotFound(model, repositories.map(shownPath).join(', '));
  const server = await createServer({
    modelRepository: repositories,
    modelControlMode: 'explicit',
    loadModels: [model],
    loadOnDemand: true,
    strictModelConfig: flags.strict,
    ...(flags.configName ? { modelConfigName: flags.configName } : {}),
    backendConfig: flags.backendConfig,
    modelNamespacing: flags.namespacing,
  });
  try {
    const entry = (await server.repositoryIndex()).find((m) => m.name === model);
    if (!entry) throw Errors.runModelNotFound(model, repositories.map(shownPath).join(', '));
    if (entry.state !== 'READY') throw Errors.runModelUnavailable(model, await explained(model, modelDir, entry.reason, repositories));
    const responses = await lastValueFrom(server.infer(request).pipe(toArray()));
    for (const res of responses) {
      if (res.outputs.length === 0) continue;
      const { body } = encodeInferResponse(res, { binaryDefault: false });
      process.stdout.write(`${String(body)}\n`);
    }
    return 0;
  } finally {
    await server.close();
  }
}
