// What both front ends do at the socket level: TLS material checks and the connections' bounds and timeouts.
export { guardConnections, type ConnectionGuard, type ConnectionLimits, type IdleHooks } from './guard-connections.js';
export { checkTlsMaterial, type TlsMaterial } from './check-tls-material.js';
