/**
 * Decoupled TypeScript models that stream N responses of OUT = INT32[SIZE] (element 0 = the
 * response's index), for the backpressure tests of both front ends: `await_sender` awaits each
 * send (it waits for its client), `loop_sender` sends in a plain loop (it cannot).
 */
import http2 from 'node:http2';
import { loadPackageDefinition } from '@grpc/grpc-js';
import { filter, lastValueFrom } from 'rxjs';
import type { Server } from '../../src/server/index.js';
import { createTensor } from '../../src/tensor/index.js';
import { loadProtos } from '../../src/frontend/grpc/index.js';
import { scriptRepo, type ScriptModel } from '../backends/typescript/script-repo.js';
import type { TempRepo } from './temp-repo.js';

const config = [
  'max_batch_size: 0',
  'instance_group [ { count: 1 kind: KIND_CPU } ]',
  'model_transaction_policy { decoupled: true }',
  'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "SIZE" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]',
];

/**
 * Sends from a task of its own, awaiting each send: execute() returns at once, so the one instance
 * takes other requests while a stream waits for its client. N = -1 answers [responses sent so far,
 * streams stopped by a rejected send] of the whole isolate, to show that a stream waits or stopped.
 */
const AWAITING = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
let sent = 0;
let stopped = 0;
export default class Model {
  execute(requests: Request[]): void {
    for (const r of requests) {
      const sender = r.responseSender();
      const n = (r.input('N').data as Int32Array)[0]!;
      const size = (r.input('SIZE').data as Int32Array)[0]!;
      if (n < 0) {
        void sender.send(new InferenceResponse({ outputs: [new Tensor('OUT', 'INT32', [2], [sent, stopped])] }), { final: true });
        continue;
      }
      void (async () => {
        for (let i = 0; i < n; i++) {
          const v = new Int32Array(size);
          v[0] = i;
          await sender.send(new InferenceResponse({ outputs: [new Tensor('OUT', 'INT32', [size], v)] }));
          sent++;
        }
        await sender.send(undefined, { final: true });
      })().catch(() => { stopped++; });
    }
  }
}
`;

/** Sends in a plain loop inside execute(): it cannot wait for its client. */
const LOOPING = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): void {
    for (const r of requests) {
      const sender = r.responseSender();
      const n = (r.input('N').data as Int32Array)[0]!;
      const size = (r.input('SIZE').data as Int32Array)[0]!;
      for (let i = 0; i < n; i++) {
        const v = new Int32Array(size);
        v[0] = i;
        sender.send(new InferenceResponse({ outputs: [new Tensor('OUT', 'INT32', [size], v)] }));
      }
      sender.send(undefined, { final: true });
    }
  }
}
`;

const SENDERS: Record<'await_sender' | 'loop_sender', ScriptModel> = {
  await_sender: { config, code: AWAITING },
  loop_sender: { config, code: LOOPING },
};

/** A decoupled pipeline of one step, await_sender: its responses flow through the dataflow. */
const RELAY = `name: "relay"
platform: "ensemble"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "SIZE" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]
ensemble_scheduling { step [ { model_name: "await_sender" model_version: -1
  input_map { key: "N" value: "N" } input_map { key: "SIZE" value: "SIZE" } output_map { key: "OUT" value: "OUT" } } ] }
`;

/** The two senders and `relay`, a pipeline over await_sender. */
export function senderRepo(): TempRepo {
  const repo = scriptRepo(SENDERS);
  repo.file('relay/config.pbtxt', RELAY);
  return repo;
}

/** Poll an async condition every 20 ms, failing after `ms`. */
export async function eventually(cond: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** await_sender's isolate: responses its streams sent so far, and streams stopped by a rejected send. */
export async function senderProgress(server: Server): Promise<{ sent: number; stopped: number }> {
  const r = await lastValueFrom(server.infer({ model: 'await_sender', inputs: [createTensor('N', 'INT32', [1], [-1]), createTensor('SIZE', 'INT32', [1], [0])] }).pipe(filter((x) => x.outputs.length > 0)));
  const [sent, stopped] = r.outputs[0]!.data as Int32Array;
  // The answer arrives in a callback from the isolate's thread: continue from a clean event-loop
  // turn (node aborts when an HTTP/2 session is destroyed from inside that callback's microtasks).
  await new Promise((resolve) => setImmediate(resolve));
  return { sent: sent!, stopped: stopped! };
}

/** senderProgress once await_sender's streams stopped moving (a script that is told to pause ends its batch first). */
export async function settledProgress(server: Server): Promise<{ sent: number; stopped: number }> {
  let last = await senderProgress(server);
  await eventually(async () => {
    await new Promise((r) => setTimeout(r, 100));
    const now = await senderProgress(server);
    const same = now.sent === last.sent;
    last = now;
    return same;
  });
  return last;
}

/** The JSON body of an HTTP infer request for N responses of SIZE elements. */
export function senderBody(n: number, size: number): string {
  return JSON.stringify({ inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [n] }, { name: 'SIZE', datatype: 'INT32', shape: [1], data: [size] }] });
}

/** The gRPC ModelInferRequest for N responses of SIZE elements. */
export function senderRequest(model: string, n: number, size: number, id = ''): object {
  return {
    model_name: model, id,
    inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }, { name: 'SIZE', datatype: 'INT32', shape: [1] }],
    raw_input_contents: [Buffer.from(Int32Array.of(n).buffer), Buffer.from(Int32Array.of(size).buffer)],
  };
}

let serialize: ((m: unknown) => Buffer) | undefined;

/** One ModelStreamInfer request message, framed as gRPC sends it (flag byte, length, message). */
function grpcFrame(request: object): Buffer {
  serialize ??= (loadPackageDefinition(loadProtos()) as any).inference.GRPCInferenceService.service.ModelStreamInfer.requestSerialize;
  const msg = serialize!(request);
  const frame = Buffer.alloc(5 + msg.length);
  frame.writeUInt32BE(msg.length, 1);
  msg.copy(frame, 5);
  return frame;
}

/**
 * A ModelStreamInfer call from a client that never reads: a raw HTTP/2 session whose stream window
 * is 0, so the server can send it no DATA at all. `write` sends one more request on the stream;
 * `cancel()` resets the stream and closes the session.
 */
export function neverReadingStream(port: number, request: object): { write(request: object): void; cancel(): void; closed: Promise<void> } {
  const session = http2.connect(`http://127.0.0.1:${port}`, { settings: { initialWindowSize: 0 } });
  session.on('error', () => {});
  const closed = new Promise<void>((resolve) => session.once('close', resolve));
  const stream = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelStreamInfer', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => {});
  stream.write(grpcFrame(request));
  return {
    write(r) {
      stream.write(grpcFrame(r));
    },
    cancel() {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      session.destroy();
    },
    /** Settles when the client's session has closed (the server closed the connection, or cancel). */
    closed,
  };
}
