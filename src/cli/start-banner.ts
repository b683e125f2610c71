import type { ModelIndexEntry } from '../server/index.js';

export interface Listener { name: string; host: string; port: number; path?: string }

export interface BannerModel extends ModelIndexEntry { loadMs?: number | undefined }

/** host:port, with an IPv6 host in brackets as URLs write it. */
function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** One line per model: state, and load time or the reason it is not ready. */
export function modelLine(m: BannerModel): string {
  const detail = m.state === 'READY' && m.loadMs !== undefined ? ` (loaded in ${Math.round(m.loadMs)} ms)` : m.reason ? ` (${m.reason})` : '';
  return `model '${m.name}'${m.version ? ` version ${m.version}` : ''}: ${m.state}${detail}`;
}

/**
 * The block logged once the front ends listen: version, server id, each listen address (with the
 * port the OS chose when 0 was asked), each model's state and load time, and what readiness means.
 */
export function startBanner(b: {
  version: string; id: string; listeners: readonly Listener[]; models: readonly BannerModel[];
  strictReadiness: boolean; ready: boolean;
  /** serve --replicas: each replica's pid and the ms from its fork to listening. */
  replicas?: readonly { pid: number; startMs: number }[];
}): string {
  const lines = [`tributary ${b.version} started, server id '${b.id}'`];
  if (b.replicas) {
    const each = b.replicas.map((r) => `pid ${r.pid} (started in ${r.startMs} ms)`).join(', ');
    lines.push(`  ${b.replicas.length} replicas sharing the HTTP and gRPC ports (node:cluster, each replica accepting from them): ${each}`);
  }
  for (const l of b.listeners) lines.push(`  ${l.name} listening on ${hostPort(l.host, l.port)}${l.path ?? ''}`);
  if (b.models.length === 0) lines.push('  no models');
  for (const m of b.models) lines.push(`  ${modelLine(m)}`);
  const meaning = b.strictReadiness
    ? 'true once every model the server loads is ready (--strict-readiness=true)'
    : 'true while the server is live, whatever the models (--strict-readiness=false)';
  lines.push(`  /v2/health/ready is ${b.ready}: ${meaning}`);
  return lines.join('\n');
}
