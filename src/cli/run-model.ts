import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { Errors } from '../errors.js';
import { decodeInferRequest, encodeInferResponse, parseJsonExact } from '../protocol/index.js';
import { createServer } from '../server/index.js';
import { parseFlags } from './flags.js';

const RUN_MODEL_HELP = `Usage: tributary run-model <repository>/<model> --input <request.json>

Load the model and the other models of its repository (the models its script or pipeline calls)
in this process, run one request once, print each response's outputs as v2 JSON (one line per
response) and exit. <request.json> is a v2 inference request body, e.g. the sample-request.json
that new-model writes. Script errors print as file:line:col.
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

export async function runModel(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags('run-model', argv, {
    input: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help || positionals.length !== 1 || values.input === undefined) {
    (values.help ? process.stdout : process.stderr).write(RUN_MODEL_HELP);
    return values.help ? 0 : 2;
  }
  const modelDir = resolve(positionals[0]!);
  const model = basename(modelDir);
  const request = await readRequest(String(values.input), model);
  // A script's BLS calls name their models only at run time, so every model of the repository is
  // loaded (explicit mode, '*'); only the model under test must be ready.
  const server = await createServer({ modelRepository: dirname(modelDir), modelControlMode: 'explicit', loadModels: ['*'] });
  try {
    const entry = (await server.repositoryIndex()).find((m) => m.name === model);
    if (!entry) throw Errors.runModelNotFound(model, dirname(modelDir));
    if (entry.state !== 'READY') throw Errors.runModelUnavailable(model, entry.reason);
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
