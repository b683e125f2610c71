/**
 * `tributary perf --shared-memory system` against a live server on this host: the run registers
 * its two regions (inputs written once, outputs), every request reads and writes through them,
 * and at the end the regions are unregistered and their shm objects removed.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { runTributary } from '../helpers/tributary-process.js';
import { startShmServers, type ShmServers } from '../helpers/shm-servers.js';

const io = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';
const FAST = ['-p', '150', '-s', '60', '-r', '20'];

let servers: ShmServers;

before(async () => {
  servers = await startShmServers({ 'ident/config.pbtxt': `name: "ident"\nbackend: "identity"\nmax_batch_size: 8\n${io}`, 'ident/1/model.identity': '' });
});

after(async () => {
  await servers?.close();
});

const perfObjects = () => readdirSync('/dev/shm').filter((f) => f.startsWith('tributary_perf_'));

for (const [protocol, url] of [['http', () => `127.0.0.1:${servers.httpPort}`], ['grpc', () => `127.0.0.1:${servers.grpcPort}`]] as const) {
  test(`perf -i ${protocol} --shared-memory system: requests go through registered regions, cleaned up after`, async () => {
    const objectsBefore = perfObjects();
    const success = () => Number(servers.server.modelStatistics('ident').model_stats[0]!.inference_stats.success.count);
    const countBefore = success();
    // The server's own registry, watched while the run goes on.
    const seen = new Map<string, { key: string; byte_size: number }>();
    const watch = setInterval(() => { for (const r of servers.shm.status()) seen.set(r.name, r); }, 10);
    let r;
    try {
      r = await runTributary(['perf', '-m', 'ident', '-u', url(), '-i', protocol, '-b', '2', '--input-data', 'zero',
        '--shared-memory', 'system', '--output-shared-memory-size', '64', ...FAST], 60_000);
    } finally {
      clearInterval(watch);
    }
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Using system shared memory for inputs and outputs/);
    assert.match(r.stdout, /Throughput: [\d.]+ infer\/sec/);
    const names = [...seen.keys()].sort();
    assert.equal(names.length, 2, names.join(', '));
    assert.match(names[0]!, /^tributary_perf_\d+_[0-9a-f]{8}_input$/);
    assert.match(names[1]!, /^tributary_perf_\d+_[0-9a-f]{8}_output$/);
    // One batch of 2 x FP32 [4] in; one 64-byte slot for the one output.
    assert.equal(seen.get(names[0]!)!.byte_size, 32);
    assert.equal(seen.get(names[1]!)!.byte_size, 64);
    assert.equal(seen.get(names[0]!)!.key, `/${names[0]}`);
    assert.ok(success() > countBefore, 'the server answered the run');
    assert.deepEqual(servers.shm.status(), [], 'unregistered at the end');
    assert.deepEqual(perfObjects(), objectsBefore, 'shm objects removed');
  });
}
