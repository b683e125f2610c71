export { createIdentityBackend } from './identity-backend.js';
