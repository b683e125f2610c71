/**
 * gRPC forwarding of sequence requests to the replica that owns them, as protobuf bytes: the
 * request message as the client sent it, the owner's response as the owner encoded it (grpc-js
 * clients with identity serializers; the server's response serializer passes a Buffer through).
 * ModelInfer is one call to the owner; a ModelStreamInfer stream opens one stream per owner it
 * reaches, sends each forwarded message on it in order and writes the answers back as they come.
 */
import { Client, Metadata, credentials, status, type ClientDuplexStream, type ServerUnaryCall, type ServiceError, type handleUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { Errors, type TributaryError } from '../../errors.js';
import type { ModelInferRequestMsg } from '../../protocol/grpc/index.js';
import { wireMessageOf } from '../../protocol/index.js';
import { ROUTING_HEADER, routingKeyOf, sequenceKey, type SequenceOwners } from './sequence-owners.js';

const INFER = '/inference.GRPCInferenceService/ModelInfer';
const STREAM = '/inference.GRPCInferenceService/ModelStreamInfer';
const identity = (b: Buffer) => b;
/** The request's bytes as received, kept on the decoded message by `keepRawBytes` (forwarding mode only). */
const RAW = Symbol('raw request bytes');

type WithRaw = { [RAW]?: Buffer };

/** Wraps the request deserializer so the decoded message keeps its bytes, to be forwarded unchanged. */
export function keepRawBytes<T>(decode: (b: Buffer) => T): (b: Buffer) => T {
  return (b) => {
    const m = decode(b);
    if (m && typeof m === 'object') (m as WithRaw)[RAW] = b;
    return m;
  };
}

/** Wraps a response serializer so a forwarded answer (already bytes) goes out as it is. */
export function passBytes<T>(encode: (v: T) => Buffer): (v: T | Buffer) => Buffer {
  return (v) => (Buffer.isBuffer(v) ? v : encode(v as T));
}

/**
 * An owner's answer, already encoded, handed on where the handler's message type is expected:
 * the serializers wrapped by `passBytes` send it out unchanged. The one place bytes pose as a message.
 */
export function asEncoded<T>(bytes: Buffer): T {
  return bytes as unknown as T;
}

/** The bytes `keepRawBytes` kept on a decoded request (undefined outside forwarding mode or for a refusal). */
function rawOf(msg: unknown): Buffer | undefined {
  return msg && typeof msg === 'object' ? (msg as WithRaw)[RAW] : undefined;
}

/** The sequence id of a decoded request message, as a routing key. */
function messageKey(msg: unknown): string | undefined {
  const p = (msg as Partial<ModelInferRequestMsg>).parameters?.sequence_id;
  const choice = p?.parameter_choice;
  return choice ? sequenceKey((p as Record<string, unknown>)[choice]) : undefined;
}

function unavailable(e: TributaryError): Partial<ServiceError> {
  return { code: status.UNAVAILABLE, details: wireMessageOf(e) };
}

export interface GrpcForwarder {
  /** ModelInfer: requests of a sequence another replica owns go there; the rest to `local`. */
  unary<Req, Res>(local: handleUnaryCall<Req, Res>): handleUnaryCall<Req, Res>;
  /** A ModelStreamInfer stream's relay (see StreamRelay). */
  stream: StreamForwarder;
  close(): void;
}

interface StreamRelay {
  /** Sends `msg` to its sequence's owner and answers it from there; false when this replica runs it. */
  take(msg: ModelInferRequestMsg): boolean;
  /** No stream to an owner is open. */
  idle(): boolean;
  /** The client half-closed: half-close every owner stream (each ends once its requests are answered). */
  end(): void;
  cancel(): void;
}

export type StreamForwarder = (
  metadata: Metadata, write: (answer: Buffer) => void, fail: (e: unknown, msg: ModelInferRequestMsg) => void, onIdle: () => void,
) => StreamRelay;

export function createGrpcForwarder(owners: SequenceOwners): GrpcForwarder {
  const clients = new Map<number, Client>();
  const clientFor = (port: number) => {
    let c = clients.get(port);
    if (!c) {
      c = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 });
      clients.set(port, c);
    }
    return c;
  };
  const portOf = (slot: number) => owners.portsOf(slot)?.grpc;

  const unary = <Req, Res>(local: handleUnaryCall<Req, Res>): handleUnaryCall<Req, Res> => (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    const raw = rawOf(call.request);
    const key = raw && (routingKeyOf(call.metadata.get(ROUTING_HEADER)[0]) ?? messageKey(call.request));
    const slot = key ? owners.ownerOf(key) : undefined;
    if (!raw || key === undefined || slot === undefined) return local(call, callback);
    const port = portOf(slot);
    if (port === undefined) return callback(unavailable(Errors.sequenceOwnerUnavailable(key, slot, 'it is down or being replaced')));
    const deadline = call.getDeadline();
    // Without waitForReady (grpc-js's default) a refused connection, an owner that just died, fails at once.
    const up = clientFor(port).makeUnaryRequest(INFER, identity, identity, raw, call.metadata, deadline === Infinity ? {} : { deadline }, (err, answer) => {
      if (err?.code === status.UNAVAILABLE) callback(unavailable(Errors.sequenceOwnerUnavailable(key, slot, err.details)));
      else if (err) callback(err);
      else callback(null, asEncoded<Res>(answer!));
    });
    call.on('cancelled', () => up.cancel());
  };

  const stream: StreamForwarder = (metadata, write, fail, onIdle) => {
    // Per owner: its stream and the messages sent on it not yet answered (one answer each for a
    // non-decoupled model), so that a stream that breaks answers each of them with UNAVAILABLE.
    const upstreams = new Map<number, { call: ClientDuplexStream<Buffer, Buffer>; pending: ModelInferRequestMsg[] }>();
    let ended = false;
    const open = (slot: number, port: number, key: string) => {
      const call = clientFor(port).makeBidiStreamRequest(STREAM, identity, identity, metadata);
      const u = { call, pending: [] as ModelInferRequestMsg[] };
      upstreams.set(slot, u);
      call.on('data', (answer: Buffer) => { u.pending.shift(); write(answer); });
      const gone = (err?: ServiceError) => {
        if (upstreams.get(slot) !== u) return;
        upstreams.delete(slot);
        if (err && err.code !== status.OK && err.code !== status.CANCELLED) {
          for (const m of u.pending.splice(0)) fail(Errors.sequenceOwnerUnavailable(messageKey(m) ?? key, slot, err.details), m);
        }
        if (upstreams.size === 0) onIdle();
      };
      call.on('error', gone);
      call.on('status', (s: { code: number; details: string }) => gone(s as ServiceError));
      return u;
    };
    return {
      take(msg) {
        const raw = rawOf(msg);
        const key = raw && messageKey(msg);
        const slot = key ? owners.ownerOf(key) : undefined;
        if (!raw || key === undefined || slot === undefined) return false;
        const port = portOf(slot);
        if (port === undefined || ended) {
          fail(Errors.sequenceOwnerUnavailable(key, slot, 'it is down or being replaced'), msg);
          return true;
        }
        const u = upstreams.get(slot) ?? open(slot, port, key);
        u.pending.push(msg);
        u.call.write(raw);
        return true;
      },
      idle: () => upstreams.size === 0,
      end: () => { ended = true; for (const u of upstreams.values()) u.call.end(); },
      cancel: () => { ended = true; for (const u of [...upstreams.values()]) u.call.cancel(); upstreams.clear(); },
    };
  };

  return { unary, stream, close: () => { for (const c of clients.values()) c.close(); clients.clear(); } };
}
