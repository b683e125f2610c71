import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { configFromJsonObject, formatProblems, normalizeConfig, parseConfigText, type ParsedConfig } from '../config/index.js';
import { Errors, TributaryError } from '../errors.js';
import { asLoadFailure, confineModelFile } from './model-paths.js';

const CONFIG_FILES: ReadonlyArray<[string, 'pbtxt' | 'yaml' | 'json']> = [
  ['config.pbtxt', 'pbtxt'], ['config.yaml', 'yaml'], ['config.yml', 'yaml'], ['config.json', 'json'],
];

export type ReadConfig = ParsedConfig & { present: boolean };

/**
 * The JSON config a load request sends (Triton's `config` parameter), parsed before anything is
 * written to disk so bad text costs nothing.
 */
export function parseConfigOverride(name: string, text: string): ReadConfig {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    throw Errors.loadParameterInvalid(name, `Invalid config override: the 'config' parameter is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw Errors.loadParameterInvalid(name, `Invalid config override: the 'config' parameter must be a JSON object (a model configuration), not ${Array.isArray(obj) ? 'an array' : typeof obj === 'object' ? 'null' : `a ${typeof obj}`}`);
  }
  let parsed: ParsedConfig;
  try {
    parsed = configFromJsonObject(obj, `${name} (config override)`);
  } catch (e) {
    throw e instanceof TributaryError ? e : Errors.loadParameterInvalid(name, `Invalid config override: the 'config' parameter is not a model configuration: ${(e as Error).message}`);
  }
  // Triton refuses an override its JSON-to-config conversion rejects (unknown fields, wrong
  // types) before loading; the semantic checks run at load, as for a config file.
  const bad = parsed.problems.filter((p) => p.severity === 'error');
  if (bad.length) throw Errors.loadParameterInvalid(name, `Invalid config override:\n${formatProblems(bad)}`);
  if (!parsed.config.name) parsed.config.name = name;
  return { ...parsed, present: true };
}

export interface ReadConfigOptions {
  /**
   * Name the config file `<model>/config.pbtxt` in problems rather than by its absolute path: load
   * errors reach clients, who have no business knowing where the repository lives.
   */
  relativeFile?: boolean;
  /**
   * tritonserver's --model-config-name: read `configs/<name>.pbtxt` of the model directory when
   * it exists, else the usual config file (Triton's "Custom Model Configuration").
   */
  configName?: string;
}

/**
 * Read and parse a model directory's config (config.pbtxt, config.yaml or config.json), or the
 * JSON override given to the repository load API. With no config file, an empty config named
 * after the directory is returned (auto-complete fills it when strict config is off). A config
 * file that is a symbolic link out of the model directory is refused.
 */
export async function readModelConfig(modelDir: string, override?: string, options: ReadConfigOptions = {}): Promise<ReadConfig> {
  const name = basename(modelDir);
  if (override !== undefined) return parseConfigOverride(name, override);
  const shownFile = (f: string) => (options.relativeFile ? `${name}/${f}` : join(modelDir, f));
  if (options.configName) {
    const custom = await readCustomConfig(name, modelDir, options.configName);
    if (custom !== undefined) {
      const parsed = parseConfigText(custom, shownFile(`configs/${options.configName}.pbtxt`), 'pbtxt', { name });
      if (!parsed.config.name) parsed.config.name = name;
      return { ...parsed, present: true };
    }
  }
  const files = new Set(await readdir(modelDir));
  const found = CONFIG_FILES.filter(([f]) => files.has(f));
  if (found.length > 1) {
    throw Errors.modelLoadFailed(name, `more than one config file in the model directory: ${found.map(([f]) => f).join(', ')}; keep one`);
  }
  if (found.length === 0) {
    return { config: normalizeConfig({ name }, { name }), file: shownFile('config.pbtxt'), positions: new Map(), problems: [], present: false };
  }
  const [fname, format] = found[0]!;
  let text: string;
  try {
    const real = await confineModelFile(modelDir, undefined, fname, 'config file', 'the model directory');
    text = await readFile(real, 'utf8');
  } catch (e) {
    if (e instanceof TributaryError) throw asLoadFailure(name, e);
    throw Errors.modelLoadFailed(name, `${fname} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const parsed = parseConfigText(text, shownFile(fname), format, { name });
  if (!parsed.config.name) parsed.config.name = name;
  return { ...parsed, present: true };
}

/** `configs/<configName>.pbtxt`, confined to the model directory (src/paths/), or undefined when absent. */
async function readCustomConfig(name: string, modelDir: string, configName: string): Promise<string | undefined> {
  let real: string;
  try {
    real = await confineModelFile(modelDir, 'configs', `${configName}.pbtxt`, '--model-config-name', 'configs/ of the model directory');
  } catch (e) {
    if (e instanceof TributaryError) throw asLoadFailure(name, e);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw Errors.modelLoadFailed(name, `configs/${configName}.pbtxt cannot be read (${code ?? 'error'})`);
  }
  try {
    return await readFile(real, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw Errors.modelLoadFailed(name, `configs/${configName}.pbtxt cannot be read (${code ?? 'error'})`);
  }
}
