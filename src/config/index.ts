export * from './model-config.js';
