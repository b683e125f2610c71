import { cp, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, toArray } from 'rxjs';
import { createIdentityBackend } from '../../../backends/identity/index.js';
import { createTypeScriptBackend } from '../../../backends/typescript/index.js';
import type { InferenceRequest, InferenceResponse } from '../../../src/inference/index.js';
import { createServer, type Server } from '../../../src/server/index.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/bls/', import.meta.url));

/** A temporary model repository holding copies of the named fixture models (plus extra files). */
export async function blsRepo(models: readonly string[], extra: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trb-bls-'));
  for (const m of models) await cp(join(FIXTURES, m), join(dir, m), { recursive: true });
  for (const [rel, text] of Object.entries(extra)) await writeFile(join(dir, rel), text);
  return dir;
}

/** A real server over those models with the typescript and identity backends. */
export async function blsServer(models: readonly string[], extra: Record<string, string> = {}): Promise<Server> {
  return createServer({
    modelRepository: await blsRepo(models, extra),
    backends: [createTypeScriptBackend(), createIdentityBackend()],
  });
}

export function inferAll(server: Pick<Server, 'infer'>, req: InferenceRequest): Promise<InferenceResponse[]> {
  return lastValueFrom(server.infer(req).pipe(toArray()));
}
