import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMessageDeframer } from '../../../src/frontend/grpc-h2/message-deframer.js';
import { parseGrpcTimeout } from '../../../src/frontend/grpc-h2/grpc-timeout.js';
import { encodeGrpcMessage } from '../../../src/frontend/grpc-h2/grpc-status.js';

function frame(payload: Buffer, flag = 0): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

test('messages come out whole at every split point; single-chunk messages are views', () => {
  const msgs = [Buffer.from('hello'), Buffer.alloc(0), Buffer.from('a longer third message')];
  const stream = Buffer.concat(msgs.map((m) => frame(m)));
  for (let a = 0; a <= stream.length; a++) {
    for (let b = a; b <= stream.length; b += 3) {
      const got: Buffer[] = [];
      const d = createMessageDeframer(1024, { message: (m) => got.push(Buffer.from(m)), reject: () => assert.fail('rejected') });
      for (const part of [stream.subarray(0, a), stream.subarray(a, b), stream.subarray(b)]) if (part.length) d.push(part);
      assert.deepEqual(got, msgs, `split at ${a}/${b}`);
      assert.equal(d.atBoundary(), true);
    }
  }
  const whole = frame(Buffer.from('view'));
  let seen: Buffer | undefined;
  createMessageDeframer(1024, { message: (m) => { seen = m; }, reject: () => {} }).push(whole);
  assert.equal(seen!.buffer, whole.buffer);
  const partial = createMessageDeframer(1024, { message: () => {}, reject: () => {} });
  partial.push(whole.subarray(0, 7));
  assert.equal(partial.atBoundary(), false);
});

test('compressed or oversized messages are rejected and stop the deframer', () => {
  const events: string[] = [];
  const on = { message: () => events.push('message'), reject: (r: string, n: number) => events.push(`${r}:${n}`) };
  createMessageDeframer(4, on).push(Buffer.concat([frame(Buffer.from('12345')), frame(Buffer.from('1'))]));
  createMessageDeframer(4, on).push(frame(Buffer.from('1'), 1));
  assert.deepEqual(events, ['too-large:5', 'compressed:1']);
});

test('grpc-timeout units and malformed values; grpc-message percent-encoding', () => {
  assert.equal(parseGrpcTimeout(undefined), undefined);
  assert.equal(parseGrpcTimeout('2S'), 2000);
  assert.equal(parseGrpcTimeout('1H'), 3_600_000);
  assert.equal(parseGrpcTimeout('1500u'), 1.5);
  assert.equal(parseGrpcTimeout('123456789m'), null, 'at most 8 digits');
  assert.equal(parseGrpcTimeout('5x'), null);
  assert.equal(encodeGrpcMessage('plain text'), 'plain text');
  assert.equal(encodeGrpcMessage('100% wörld\n'), '100%25 w%C3%B6rld%0A');
  assert.equal(decodeURIComponent(encodeGrpcMessage('100% wörld\n')), '100% wörld\n');
});
