export { startHttpServer, buildHttpApp, DEFAULT_BODY_LIMIT } from './start-http-server.js';
export type { HttpServerOptions, HttpServerHandle } from './start-http-server.js';
