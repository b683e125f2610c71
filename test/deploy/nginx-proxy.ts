/**
 * nginx for the tests: deploy/nginx/tributary.conf rendered into a temporary directory (every
 * path nginx writes lives there) in front of the given replicas, run in the foreground, stopped
 * with the test; and its access log read back as (routing key, replica, status) lines.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './deploy-files.js';

const NGINX_TEMPLATE = join(ROOT, 'deploy/nginx/tributary.conf');

/** The nginx binary (sbin is not on every user's PATH), or why there is none. */
export function findNginx(): { bin: string } | { none: string } {
  for (const bin of ['nginx', '/usr/sbin/nginx']) {
    const r = spawnSync(bin, ['-v'], { encoding: 'utf8', timeout: 10_000 });
    if (!r.error && r.status === 0) return { bin };
  }
  return { none: 'nginx is not installed (Debian: apt-get install nginx-light or nginx): the load-balancer test needs a real proxy' };
}

/** The template with its placeholders replaced (in directives; its comments name them too); one without a value throws. */
function renderNginxConfig(values: Record<string, string>): string {
  return readFileSync(NGINX_TEMPLATE, 'utf8').split('\n').map((line) => (line.trimStart().startsWith('#') ? line : line.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (values[name] === undefined) throw new Error(`${NGINX_TEMPLATE}: no value for {{${name}}}`);
    return values[name]!;
  }))).join('\n');
}

/** A port free right now on 127.0.0.1 (nginx cannot listen on port 0 and tell us which it got). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.on('connect', () => { c.destroy(); resolve(true); });
    c.on('error', () => resolve(false));
  });
}

interface RouteLine { key: string; upstream: string; status: number }

export interface NginxProxy {
  http: number;
  grpc: number;
  /** Every request logged so far: the key it was hashed on, the replica address(es) tried, the status. */
  routes(): RouteLine[];
  stop(): Promise<void>;
}

export async function startNginx(bin: string, replicas: readonly { http: number; grpc: number }[]): Promise<NginxProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-nginx-'));
  const [http, grpc] = [await freePort(), await freePort()];
  const servers = (which: 'http' | 'grpc') => replicas.map((r) => `server 127.0.0.1:${r[which]};`).join('\n    ');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, renderNginxConfig({
    RUN_DIR: dir, HTTP_LISTEN: `127.0.0.1:${http}`, GRPC_LISTEN: `127.0.0.1:${grpc}`,
    HTTP_SERVERS: servers('http'), GRPC_SERVERS: servers('grpc'),
  }));
  const child = spawn(bin, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  while (!(await accepts(http)) || !(await accepts(grpc))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    http,
    grpc,
    routes: () => readFileSync(join(dir, 'access.log'), 'utf8').split('\n').filter(Boolean).map((line) => {
      const [key, upstream, status] = line.split('|');
      return { key: key!, upstream: upstream!, status: Number(status) };
    }),
    stop,
  };
}
