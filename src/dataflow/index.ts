export { createEnsembleScheduler } from './ensemble-scheduler.js';
