export { ROUTING_HEADER, createSequenceOwners, routingKeyOf, sequenceHash, sequenceKey } from './sequence-owners.js';
export type { PrivatePorts, SequenceOwners } from './sequence-owners.js';
export { createHttpForwarder } from './forward-http.js';
export type { HttpForwarder } from './forward-http.js';
export { asEncoded, createGrpcForwarder, keepRawBytes, passBytes } from './forward-grpc.js';
export type { GrpcForwarder, StreamForwarder } from './forward-grpc.js';
