import { access } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settingIs, withBackendDefaults, type BackendFactory, type BackendModel, type LoadContext } from '../../src/backend/index.js';
import type { ModelConfig } from '../../src/config/index.js';
import { Errors, type TributaryError } from '../../src/errors.js';
import { rateLimited } from '../../src/logger.js';
import { confinePath } from '../../src/paths/index.js';
import type { CallShape } from './batch-call.js';
import { bundleScript } from './bundle-script.js';
import { outputCheck } from './check-outputs.js';
import { readModelFiles } from './read-model-files.js';
import { sandboxOptions } from './sandbox-options.js';
import { createStackMapper } from './stack-mapper.js';
import type { IsolateSpec } from './script-isolate.js';
import { typeCheckScript } from './type-check-script.js';
import { TypescriptInstance } from './typescript-instance.js';

/** At most one log line per model per this many ms for its scripts' execute() errors (the rest are counted). */
export const SCRIPT_ERROR_LOG_INTERVAL_MS = 10_000;

async function exists(p: string): Promise<boolean> {
  return access(p).then(() => true, () => false);
}

/**
 * model.ts, or model.js when the config names the default and only the .js exists. The loader has
 * confined ctx.modelFile; the model.js fallback is confined here the same way (src/paths/).
 */
async function findScript(config: ModelConfig, ctx: LoadContext): Promise<string> {
  if (await exists(ctx.modelFile)) return ctx.modelFile;
  if (basename(ctx.modelFile) === 'model.ts') {
    const js = await confinePath(ctx.versionDir, 'model.js', 'model file', { inside: `version directory ${ctx.version}/ of the model` })
      .catch((e: unknown) => { throw Errors.pathEscapes.is(e) ? (e as TributaryError).withContext(`failed to load '${config.name}'`) : e; });
    if (await exists(js)) return js;
  }
  throw Errors.modelLoadFailed(config.name, `no script at ${relative(ctx.modelDir, ctx.modelFile)} in the model directory (a typescript model needs <version>/model.ts or model.js)`);
}

/**
 * Business-logic scripts: `<model>/<version>/model.ts` bundled with its pure-JS imports and run in
 * isolated-vm isolates (see sandbox-options.ts for the per-model limits).
 */
export function createTypeScriptBackend(): BackendFactory {
  return typescriptBackend;
}

/**
 * What a load checks before it starts an isolate: the sandbox parameters, the script's bundle
 * (imports confined to the model directory) and its type check. `tributary validate` runs this
 * same function, so the two refuse the same scripts with the same message.
 */
async function prepareScript(config: ModelConfig, ctx: LoadContext) {
  const options = sandboxOptions(withBackendDefaults(config, ctx.settings));
  const file = await findScript(config, ctx);
  const rel = relative(ctx.modelDir, file);
  // Bundle first: it refuses imports that leave the model directory with their own message,
  // where the type checker would only report modules it cannot find.
  const bundled = await bundleScript(file, ctx.modelDir);
  if (!bundled.ok && bundled.refused) throw Errors.scriptImportRefused(config.name, rel, bundled.errors);
  if (!bundled.ok) throw Errors.modelLoadFailed(config.name, `cannot bundle ${rel}:\n  ${bundled.errors.join('\n  ')}`);
  if (file.endsWith('.ts') && options.typeCheck !== 'off') {
    const problems = typeCheckScript(file, ctx.modelDir);
    if (problems.length && options.typeCheck === 'error') {
      throw Errors.modelLoadFailed(config.name, `${rel} has type errors (set parameter type_check to "warn" to load anyway):\n  ${problems.join('\n  ')}`);
    }
    for (const p of problems) ctx.log.warn(`model '${config.name}': ${p}`);
  }
  return { options, rel, bundle: bundled.bundle };
}

/**
 * Ready when every instance's script says so, within `timeoutMs` (parameter ready_timeout_ms):
 * a script that throws, hangs or answers late makes the model not ready, never the probe slow.
 */
function askInstances(instances: readonly TypescriptInstance[], timeoutMs: number): boolean | Promise<boolean> {
  const asks: Promise<boolean>[] = [];
  for (const instance of instances) {
    const r = instance.isReady();
    if (r === false) return false;
    if (r !== true) asks.push(r);
  }
  if (asks.length === 0) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    void Promise.all(asks).then((all) => {
      clearTimeout(timer);
      resolve(all.every((r) => r));
    });
  });
}

const typescriptBackend: BackendFactory = {
  name: 'typescript',
  defaultModelFilename: 'model.ts',
  directory: fileURLToPath(new URL('.', import.meta.url)),
  // The ranges sandboxOptions enforces on a model's own parameters.
  settings: {
    memory_limit_mb: settingIs.int(8),
    timeout_ms: settingIs.int(1),
    type_check: settingIs.oneOf('error', 'warn', 'off'),
    isolate_spares: settingIs.int(0, 8),
    response_timeout_ms: settingIs.int(1),
    allow_webassembly: settingIs.oneOf('true', 'false'),
    fast_path_ms: settingIs.int(0, 2),
    ready_timeout_ms: settingIs.int(1),
  },

  async check(config: ModelConfig, ctx: LoadContext): Promise<void> {
    await prepareScript(config, ctx);
  },

  async load(config: ModelConfig, ctx: LoadContext): Promise<BackendModel> {
    const { options, rel, bundle } = await prepareScript(config, ctx);
    const decoupled = config.model_transaction_policy?.decoupled === true;
    // The client gets each error of execute(); the log gets them too, but a model failing every
    // request under load must not write a line per request.
    const warnExecuteError = rateLimited((m) => ctx.log.warn(m), SCRIPT_ERROR_LOG_INTERVAL_MS);
    const warnReadyError = rateLimited((m) => ctx.log.warn(m), SCRIPT_ERROR_LOG_INTERVAL_MS);
    const spec: IsolateSpec = {
      model: config.name,
      bundle,
      mapStack: createStackMapper(bundle, ctx.modelDir),
      options,
      init: {
        config: config as unknown as Record<string, unknown>,
        modelName: config.name,
        modelVersion: ctx.version,
        files: await readModelFiles(config.name, ctx.modelDir, ctx.version),
        decoupled,
      },
      host: ctx.host,
      log: ctx.log,
      onExecuteError: (e) => warnExecuteError(e.message),
      onReadyError: (e) => warnReadyError(`${e.message}; the model answers not ready`),
    };
    const outputNames = config.output.map((o) => o.name);
    const shape: CallShape = {
      model: config.name,
      decoupled,
      check: outputCheck(config, rel),
      responseTimeoutMs: options.responseTimeoutMs,
      instances: (config.instance_group ?? []).reduce((n, g) => n + (g.count ?? 1), 0) || 1,
    };
    // Opened last: from here on the loader finalizes the model whatever happens, which closes it.
    const metrics = ctx.host.customMetrics?.(config.name, ctx.version);
    if (metrics) spec.metrics = metrics;
    const instances: TypescriptInstance[] = [];
    return {
      createInstance: async (index) => {
        const instance = await TypescriptInstance.create(spec, index, shape, outputNames);
        instances.push(instance);
        return instance;
      },
      isReady: () => askInstances(instances, options.readyTimeoutMs),
      finalize: async () => { metrics?.close(); },
    };
  },
};
