/** The metrics port (tritonserver --metrics-port, 8002): `GET /metrics` in Prometheus text format. */
import { createServer as createHttpServer } from 'node:http';
import { Registry } from 'prom-client';
import { createInferenceListener } from './inference-metrics.js';
import { parseMetricsConfig } from './metrics-config.js';
import { registerSystemMetrics, type SystemMetricsOptions } from './system-metrics.js';
import { registerRepositoryMetrics, type MetricsSource } from './repository-metrics.js';
import { registerCustomMetrics } from './custom-metrics.js';

export interface Metrics {
  registry: Registry;
  /** Stop listening to the server. */
  detach(): void;
}

/**
 * A fresh registry (never prom-client's global one) fed by `server`'s listener records. A replica
 * of `serve --replicas` keeps one without a port: the primary asks for it at scrape time.
 */
export function createMetrics(server: MetricsSource, config: Record<string, string> | undefined, system: SystemMetricsOptions): Metrics {
  const registry = new Registry();
  const stopSampling = registerSystemMetrics(registry, system);
  registerRepositoryMetrics(registry, server);
  const unlisten = server.addListener(createInferenceListener(registry, parseMetricsConfig(config)));
  const stopCustom = server.customMetrics ? registerCustomMetrics(registry, server.customMetrics()) : () => {};
  return { registry, detach: () => { unlisten(); stopSampling(); stopCustom(); } };
}

export async function startMetricsServer(
  server: MetricsSource,
  options: { port: number; host?: string; config?: Record<string, string> } & SystemMetricsOptions,
): Promise<{ port: number; close(): Promise<void>; registry: Registry }> {
  const metrics = createMetrics(server, options.config, {
    ...(options.cpu === undefined ? {} : { cpu: options.cpu }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  });
  const listener = await listenMetrics(options, () => metrics.registry);
  return {
    port: listener.port,
    registry: metrics.registry,
    close: async () => {
      metrics.detach();
      await listener.close();
    },
  };
}

/** Serves `GET /metrics` from the registry `render` gives at each scrape (built fresh by `serve --replicas`' primary). */
export async function listenMetrics(
  options: { port: number; host?: string },
  render: () => Registry | Promise<Registry>,
): Promise<{ port: number; close(): Promise<void> }> {
  const http = createHttpServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || (path !== '/metrics' && path !== '/metrics/')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route for ${req.method} ${path}; metrics are at GET /metrics` }));
      return;
    }
    Promise.resolve().then(render).then(async (registry) => ({ type: registry.contentType, text: await registry.metrics() })).then(
      (r) => res.writeHead(200, { 'content-type': r.type }).end(r.text),
      (e: Error) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: e.message })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const address = http.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}
