export { createTypeScriptBackend } from './typescript-backend.js';
export { scaffoldModel } from './scaffold.js';
