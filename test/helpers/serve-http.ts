import { startHttpServer } from '../../src/frontend/http/index.js';
import { createServer, type Server } from '../../src/server/index.js';

export interface HttpServed {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** The HTTP front end, then the server; the repository is the caller's. */
  close(): Promise<void>;
}

/**
 * A real server over `repoDir` in explicit mode that loads `models` one after another (a
 * pipeline's load brings its steps), with its HTTP front end on 127.0.0.1 port 0.
 */
export async function serveHttp(repoDir: string, models: readonly string[]): Promise<HttpServed> {
  const server = await createServer({ modelRepository: repoDir, modelControlMode: 'explicit' });
  try {
    for (const m of models) await server.loadModel(m);
    const http = await startHttpServer(server, { port: 0, host: '127.0.0.1' });
    return { server, base: `http://127.0.0.1:${http.port}`, close: async () => { await http.close(); await server.close(); } };
  } catch (e) {
    await server.close();
    throw e;
  }
}
