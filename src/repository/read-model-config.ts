import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { configFromJsonObject, normalizeConfig, parseConfigText, type ParsedConfig } from '../config/index.js';
import { Errors } from '../errors.js';

const CONFIG_FILES: ReadonlyArray<[string, 'pbtxt' | 'yaml' | 'json']> = [
  ['config.pbtxt', 'pbtxt'], ['config.yaml', 'yaml'], ['config.yml', 'yaml'], ['config.json', 'json'],
];

/**
 * Read and parse a model directory's config (config.pbtxt, config.yaml or config.json), or the
 * JSON override given to the repository load API. With no config file, an empty config named
 * after the directory is returned (auto-complete fills it when strict config is off).
 */
export async function readModelConfig(modelDir: string, override?: string): Promise<ParsedConfig & { present: boolean }> {
  const name = basename(modelDir);
  if (override !== undefined) {
    let obj: unknown;
    try {
      obj = JSON.parse(override);
    } catch (e) {
      throw Errors.invalidArg(`failed to load '${name}': the 'config' parameter is not valid JSON: ${(e as Error).message}`);
    }
    const parsed = configFromJsonObject(obj, `${name} (config override)`);
    if (!parsed.config.name) parsed.config.name = name;
    return { ...parsed, present: true };
  }
  const files = new Set(await readdir(modelDir));
  const found = CONFIG_FILES.filter(([f]) => files.has(f));
  if (found.length > 1) {
    throw Errors.modelLoadFailed(name, `more than one config file in ${modelDir}: ${found.map(([f]) => f).join(', ')}; keep one`);
  }
  if (found.length === 0) {
    const file = join(modelDir, 'config.pbtxt');
    return { config: normalizeConfig({ name }, { name }), file, positions: new Map(), problems: [], present: false };
  }
  const [fname, format] = found[0]!;
  const file = join(modelDir, fname);
  const text = await readFile(file, 'utf8');
  const parsed = parseConfigText(text, file, format, { name });
  if (!parsed.config.name) parsed.config.name = name;
  return { ...parsed, present: true };
}
