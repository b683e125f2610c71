export { startGrpcH2Server } from './start-grpc-h2-server.js';
