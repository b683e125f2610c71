/**
 * `kubectl kustomize DIR` for the tests, offline and without kubectl: the kustomization's
 * resources (files, and directories holding a kustomization, built first), then its patches,
 * labels and images, as kustomize applies them. Only the fields the project's bases and the
 * tests' overlays use are implemented; any other field throws, naming it, so a kustomization
 * never renders here differently from kubectl by silently skipping a field. Objects keep
 * resource order (kubectl sorts them by kind; nothing here depends on order).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { Doc } from './deploy-files.js';

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'patches', 'labels', 'images']);

interface Target { kind?: string; name?: string; group?: string; version?: string }

function readYamlDocs(file: string): Doc[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJS();
  }).filter((d) => d !== null);
}

function kustomizationFile(dir: string): string {
  for (const name of ['kustomization.yaml', 'kustomization.yml', 'Kustomization']) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`${dir}: no kustomization.yaml`);
}

/** Every object the kustomization in `dir` renders to. */
export function kustomizeBuild(dir: string): Doc[] {
  const file = kustomizationFile(dir);
  const k: Doc = parse(readFileSync(file, 'utf8'));
  for (const key of Object.keys(k)) if (!SUPPORTED.has(key)) throw new Error(`${file}: '${key}' is not implemented by the tests' kustomize (${[...SUPPORTED].join(', ')})`);
  const objects: Doc[] = [];
  for (const r of (k.resources ?? []) as string[]) {
    const p = resolve(dir, r);
    objects.push(...(statSync(p).isDirectory() ? kustomizeBuild(p) : readYamlDocs(p)));
  }
  for (const p of (k.patches ?? []) as Doc[]) applyPatch(objects, p, dir, file);
  for (const l of (k.labels ?? []) as Doc[]) addLabels(objects, l, file);
  for (const img of (k.images ?? []) as Doc[]) setImage(objects, img);
  return objects;
}

function matches(obj: Doc, t: Target): boolean {
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : ['', obj.apiVersion];
  return (t.kind === undefined || t.kind === obj.kind) && (t.name === undefined || new RegExp(`^(?:${t.name})$`).test(obj.metadata?.name))
    && (t.group === undefined || t.group === group) && (t.version === undefined || t.version === version);
}

function applyPatch(objects: Doc[], p: Doc, dir: string, file: string): void {
  const text: string = p.path !== undefined ? readFileSync(resolve(dir, p.path), 'utf8') : p.patch;
  if (typeof text !== 'string') throw new Error(`${file}: a patch needs 'path' or 'patch'`);
  const body: Doc = parse(text);
  if (Array.isArray(body)) {
    // A JSON 6902 patch: a list of operations, applied to every object the target selects.
    if (!p.target) throw new Error(`${file}: a JSON 6902 patch needs a target`);
    const hits = objects.filter((o) => matches(o, p.target));
    if (hits.length === 0) throw new Error(`${file}: patch target ${JSON.stringify(p.target)} selects no object`);
    for (const o of hits) for (const op of body) jsonPatchOp(o, op, file);
    return;
  }
  // A strategic-merge patch: names its object itself (or is applied to the target's).
  const target: Target = p.target ?? { kind: body.kind, name: body.metadata?.name };
  const hits = objects.filter((o) => matches(o, target));
  if (hits.length === 0) throw new Error(`${file}: strategic-merge patch for ${target.kind}/${target.name} selects no object`);
  for (const o of hits) {
    const merged = strategicMerge(o, body);
    for (const key of Object.keys(o)) delete o[key];
    Object.assign(o, merged);
  }
}

const unescape = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** One RFC 6902 operation on `root`, in place; a path that does not resolve throws, as kustomize does. */
function jsonPatchOp(root: Doc, op: Doc, file: string): void {
  const at = (path: string): [Doc, string] => {
    const parts = path.split('/').slice(1).map(unescape);
    let node = root;
    for (const part of parts.slice(0, -1)) {
      node = Array.isArray(node) ? node[Number(part)] : node?.[part];
      if (node === undefined || node === null) throw new Error(`${file}: JSON patch path ${path} does not exist`);
    }
    return [node, parts[parts.length - 1]!];
  };
  const get = (path: string) => { const [n, k] = at(path); return n[k]; };
  const put = (path: string, value: unknown, insert: boolean) => {
    const [n, k] = at(path);
    if (Array.isArray(n)) {
      const i = k === '-' ? n.length : Number(k);
      if (insert) n.splice(i, 0, value);
      else { if (i >= n.length) throw new Error(`${file}: JSON patch path ${path} does not exist`); n[i] = value; }
    } else {
      if (!insert && !(k in n)) throw new Error(`${file}: JSON patch path ${path} does not exist`);
      n[k] = value;
    }
  };
  const remove = (path: string) => {
    const [n, k] = at(path);
    if (Array.isArray(n)) { if (Number(k) >= n.length) throw new Error(`${file}: JSON patch path ${path} does not exist`); n.splice(Number(k), 1); }
    else { if (!(k in n)) throw new Error(`${file}: JSON patch path ${path} does not exist`); delete n[k]; }
  };
  const clone = <T>(v: T): T => structuredClone(v);
  switch (op.op) {
    case 'add': put(op.path, clone(op.value), true); break;
    case 'replace': put(op.path, clone(op.value), false); break;
    case 'remove': remove(op.path); break;
    case 'copy': put(op.path, clone(get(op.from)), true); break;
    case 'move': { const v = get(op.from); remove(op.from); put(op.path, v, true); break; }
    case 'test': if (JSON.stringify(get(op.path)) !== JSON.stringify(op.value)) throw new Error(`${file}: JSON patch test at ${op.path} failed`); break;
    default: throw new Error(`${file}: unknown JSON patch op '${op.op}'`);
  }
}

/**
 * Kubernetes' merge keys for the lists the manifests hold (a list without one is replaced whole,
 * as strategic merge does for lists without a patchMergeKey).
 */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name', initContainers: 'name', volumes: 'name', env: 'name', volumeMounts: 'mountPath', ports: 'containerPort', imagePullSecrets: 'name',
};

function strategicMerge(base: Doc, patch: Doc, field?: string): Doc {
  if (patch === null) return undefined;
  if (Array.isArray(patch)) {
    const key = field === undefined ? undefined : MERGE_KEYS[field];
    if (!key || !Array.isArray(base)) return structuredClone(patch);
    const out = structuredClone(base) as Doc[];
    for (const item of patch) {
      const i = out.findIndex((b) => b[key] === item[key]);
      if (item.$patch === 'delete') { if (i >= 0) out.splice(i, 1); continue; }
      if (item.$patch !== undefined) throw new Error(`strategic merge: '$patch: ${item.$patch}' is not implemented`);
      if (i >= 0) out[i] = strategicMerge(out[i], item);
      else out.push(structuredClone(item));
    }
    return out;
  }
  if (typeof patch !== 'object' || typeof base !== 'object' || base === null || Array.isArray(base)) return structuredClone(patch);
  if (patch.$patch === 'replace') { const { $patch: _, ...rest } = patch; return structuredClone(rest); }
  const out: Doc = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    const merged = strategicMerge(base[k], v, k);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

/** `labels:` entries: metadata labels always; selectors (and templates) only when asked, as kustomize. */
function addLabels(objects: Doc[], entry: Doc, file: string): void {
  const pairs: Record<string, string> = entry.pairs ?? {};
  const extra = Object.keys(entry).filter((k) => !['pairs', 'includeSelectors', 'includeTemplates'].includes(k));
  if (extra.length) throw new Error(`${file}: labels field(s) ${extra.join(', ')} not implemented`);
  for (const o of objects) {
    o.metadata = { ...o.metadata, labels: { ...o.metadata?.labels, ...pairs } };
    if (entry.includeSelectors) throw new Error(`${file}: labels.includeSelectors: true is not implemented`);
    if (entry.includeTemplates && o.spec?.template?.metadata) {
      o.spec.template.metadata.labels = { ...o.spec.template.metadata.labels, ...pairs };
    }
  }
}

/** `images:` sets newName / newTag / digest on every container whose image name matches. */
function setImage(objects: Doc[], img: Doc): void {
  const visit = (node: Doc, key?: string): void => {
    if (Array.isArray(node)) {
      if (key === 'containers' || key === 'initContainers') {
        for (const c of node) {
          if (typeof c?.image !== 'string') continue;
          const name = c.image.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
          if (name !== img.name) continue;
          const tag = img.digest ? `@${img.digest}` : img.newTag ? `:${img.newTag}` : c.image.slice(name.length);
          c.image = `${img.newName ?? name}${tag}`;
        }
      }
      for (const x of node) visit(x);
    } else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) visit(v, k);
    }
  };
  for (const o of objects) visit(o);
}
