// Starts the real server on the built-in repository and its HTTP front end on 127.0.0.1:0.
import { createServer, type ServerOptions } from '../../src/server/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { pipelinesDir } from './pipeline-files.js';

export interface Served { url: string; close(): Promise<void> }

export async function servePipelines(options: Partial<ServerOptions> = {}): Promise<Served> {
  const server = await createServer({ modelRepository: pipelinesDir, ...options });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${http.port}`,
    async close() { await http.close(); await server.close(); },
  };
}

export async function modelStats(url: string, model: string): Promise<{ inference_count: number; execution_count: number; inference_stats: Record<string, { count: number; ns: number }> }> {
  const res = await fetch(`${url}/v2/models/${model}/stats`);
  if (!res.ok) throw new Error(`stats of ${model}: HTTP ${res.status} ${await res.text()}`);
  const body = await res.json() as { model_stats: { inference_count: number; execution_count: number; inference_stats: Record<string, { count: number; ns: number }> }[] };
  const stats = body.model_stats[0];
  if (!stats) throw new Error(`stats of ${model}: the response has no model_stats entry`);
  return stats;
}
