import { createServer, type LocalServer, type ServerOptions } from '../../src/server/index.js';

/** Run `body` against a real server over `options`, closing the server however body ends. */
export async function withServer(options: ServerOptions, body: (server: LocalServer) => Promise<void>): Promise<void> {
  const server = await createServer(options);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}
