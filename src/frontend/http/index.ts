export { startHttpServer, buildHttpApp } from './start-http-server.js';
export type { HttpServerOptions, HttpServerHandle } from './start-http-server.js';
export { HTTP_DEFAULTS } from './http-limits.js';
export { httpsServerOptions } from './http-tls.js';
