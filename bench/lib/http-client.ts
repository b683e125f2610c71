/**
 * A lean keep-alive HTTP client for load generation: one agent with a socket per in-flight slot,
 * pre-encoded bodies, the response drained into one Buffer. Non-2xx responses reject.
 */
import { Agent, request } from 'node:http';

export interface HttpPoster {
  post(path: string, body: Buffer, headers?: Record<string, string | number>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>;
  get(path: string): Promise<{ status: number; body: Buffer }>;
  close(): void;
}

export function createHttpPoster(base: string, maxSockets = 64): HttpPoster {
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  const call = (method: string, path: string, body: Buffer | undefined, headers: Record<string, string | number>) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = request({
        host: url.hostname, port: url.port, path, method, agent,
        headers: body ? { 'content-length': body.byteLength, ...headers } : headers,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out = { status: res.statusCode ?? 0, headers: res.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) };
          if (out.status >= 300) reject(Object.assign(new Error(`HTTP ${out.status}: ${out.body.toString().slice(0, 200)}`), out));
          else resolve(out);
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    post: (path, body, headers = {}) => call('POST', path, body, headers),
    get: (path) => call('GET', path, undefined, {}),
    close: () => agent.destroy(),
  };
}

/** Reads `tributary_process_cpu_seconds_total{mode="total"}` from a metrics endpoint. */
export function metricsCpuProbe(metricsBase: string): () => Promise<number | undefined> {
  const client = createHttpPoster(metricsBase, 1);
  return async () => {
    try {
      const text = (await client.get('/metrics')).body.toString();
      const m = /^tributary_process_cpu_seconds_total\{mode="total"\} ([\d.e+-]+)$/m.exec(text);
      return m ? Number(m[1]) : undefined;
    } catch {
      return undefined;
    }
  };
}
