export { createHttpClient } from './create-http-client.js';
export type { HttpClient, HttpClientOptions } from './create-http-client.js';
