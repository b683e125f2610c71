// What both front ends do at the socket level: TLS material checks and the connection bound.
export { boundConnections } from './bound-connections.js';
export { checkTlsMaterial, type TlsMaterial } from './check-tls-material.js';
