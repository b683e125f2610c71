#!/usr/bin/env node
// The `tributary` command. Sources are TypeScript run through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
