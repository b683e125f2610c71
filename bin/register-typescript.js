// `node --import ./bin/register-typescript.js entry.ts`: TypeScript sources run through
// typescript-hooks.js (see there why not tsx), stack traces point into the .ts files.
import { register } from 'node:module';

register('./typescript-hooks.js', import.meta.url);
process.setSourceMapsEnabled(true);
