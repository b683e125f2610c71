/**
 * The edge's part in experiments (src/dataplane/edge.ts): the headers loaded experiments route on
 * are copied into the request's `routingHeaders`, and only those; nothing is read or set while no
 * experiment asks. test/experiment/experiment-e2e.test.ts covers the same over real servers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { of } from 'rxjs';
import { createEdge, type CallerHeaders } from '../../src/dataplane/edge.js';
import { createRoutingHeaders } from '../../src/experiment/index.js';
import type { InferenceRequest } from '../../src/inference/index.js';

function headersOf(record: Record<string, string>): CallerHeaders & { read: string[] } {
  const read: string[] = [];
  return { read, get: (name) => (read.push(name), record[name]), entries: () => Object.entries(record) };
}

test('only the headers a loaded experiment asks for reach the request, as routingHeaders', () => {
  const seen: InferenceRequest[] = [];
  const asked = createRoutingHeaders();
  const edge = createEdge((r) => (seen.push(r), of()), { routingHeaders: () => asked.names() });
  const headers = { 'x-user': 'alice', 'x-team': 'blue', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

  const none = headersOf(headers);
  edge.infer({ model: 'm', inputs: [] }, none);
  assert.equal(seen[0]!.routingHeaders, undefined);
  assert.deepEqual(none.read, ['traceparent'], 'no experiment asks: no header is read for routing');

  const release = asked.add('X-User');
  const again = asked.add('x-user'); // two experiments (or the two versions of a reload) ask for one name
  asked.add('x-missing');
  edge.infer({ model: 'm', inputs: [] }, headersOf(headers));
  assert.deepEqual(seen[1]!.routingHeaders, { 'x-user': 'alice' });
  assert.equal(seen[1]!.parameters, undefined, 'never a parameter the model sees');

  release();
  edge.infer({ model: 'm', inputs: [] }, headersOf(headers));
  assert.deepEqual(seen[2]!.routingHeaders, { 'x-user': 'alice' }, 'still asked for by the other');
  again();
  edge.infer({ model: 'm', inputs: [] }, headersOf(headers));
  assert.equal(seen[3]!.routingHeaders, undefined);
  assert.deepEqual(asked.names(), ['x-missing']);
});
