#!/usr/bin/env node
// The `tributary` command. Sources are TypeScript, run as they are through our own module hooks
// (bin/typescript-hooks.js: no build step, and none of tsx's per-closure cost on the request path).
import './register-typescript.js';

const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
