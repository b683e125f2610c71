export { checkTlsMaterial, type TlsMaterial } from './check-tls-material.js';
