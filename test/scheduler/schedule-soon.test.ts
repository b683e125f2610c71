import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastValueFrom } from 'rxjs';
import { createServer } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { tempRepo } from '../helpers/temp-repo.js';

test('back-to-back synchronous completions still give timers and I/O a turn', async () => {
  // The identity backend answers synchronously; a caller awaiting request after request would
  // chain microtasks forever without the scheduler's turn budget (src/scheduler/schedule-soon.ts).
  const repo = tempRepo({
    'echo/config.pbtxt': 'name: "echo"\nbackend: "identity"\nmax_batch_size: 0\ninput [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]\noutput [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]\n',
    'echo/1/.keep': '',
  });
  const server = await createServer({ modelRepository: repo.dir });
  try {
    const input = createTensor('IN', 'INT32', [1], [7]);
    let timerFired = false;
    setTimeout(() => { timerFired = true; }, 5);
    let n = 0;
    while (!timerFired && n < 500_000) {
      await lastValueFrom(server.infer({ model: 'echo', inputs: [input] }));
      n++;
    }
    assert.ok(timerFired, `a 5 ms timer never fired during ${n} back-to-back requests`);
  } finally {
    await server.close();
    repo.remove();
  }
});
