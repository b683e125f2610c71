#!/usr/bin/env node
// Builds dist/, what the package gives projects that run plain Node (no tsx): runs on `npm pack`
// (prepack). The repository itself never reads dist/: its tsconfig and tests resolve the
// "tributary-source" export condition to the .ts sources.
//   dist/src/client/index.js   tributary/client, one ESM bundle (dependencies stay imports)
//   dist/protocol/grpc/*.proto the gRPC client's protos, where the bundle's relative URL
//                              ('../../protocol/grpc/' from dist/src/client/) finds them
//   dist/types/**.d.ts         declarations for tributary/client and tributary/bls
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

await build({
  entryPoints: [join(root, 'src/client/index.ts')],
  outfile: join(dist, 'src/client/index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});

const protoDir = join(root, 'src/protocol/grpc');
mkdirSync(join(dist, 'protocol/grpc'), { recursive: true });
for (const f of readdirSync(protoDir).filter((n) => n.endsWith('.proto'))) {
  copyFileSync(join(protoDir, f), join(dist, 'protocol/grpc', f));
}

// Declarations keep the source layout under dist/types/, so types/bls.d.ts's own relative imports
// (../src/tensor, ../src/errors) land on the emitted .d.ts files next to it.
const tsc = spawnSync(process.execPath, [
  join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.dist.json'),
], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) {
  console.error('declaration build failed: run `npx tsc -p tsconfig.dist.json` to see why');
  process.exit(tsc.status ?? 1);
}
mkdirSync(join(dist, 'types/types'), { recursive: true });
copyFileSync(join(root, 'types/bls.d.ts'), join(dist, 'types/types/bls.d.ts'));
