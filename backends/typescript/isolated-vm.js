// isolated-vm for the running Node: one native addon line per V8 generation. 5.0.x is the last to
// build on Node 20; Node 24's V8 needs C++20, which only 6.x builds with (6.x also ships prebuilt
// binaries for Node 22 and 24). package.json installs both as optional aliases: npm skips the line
// whose engines exclude this Node (6.x on 20) and drops the one whose build fails (5.x on 24), so
// the line picked here is the one that is always there. Plain JavaScript with a declaration beside
// it: the types are isolated-vm's own (tsconfig.json "paths" points 'isolated-vm' at whichever
// line is installed; both ship the same declarations).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

export default require(major >= 22 ? 'isolated-vm-6' : 'isolated-vm-5');
