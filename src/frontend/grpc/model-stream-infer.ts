import { Metadata, type handleBidiStreamingCall, type ServerDuplexStream } from '@grpc/grpc-js';
import type { Subscription } from 'rxjs';
import { Errors, toTributaryError } from '../../errors.js';
import { wireMessageOf } from '../../protocol/index.js';
import { emptyFinalResponse, encodeStreamInferResponse, inferRequestFromProto, inferResponseToProto } from '../../protocol/grpc/index.js';
import type { ModelInferRequestMsg, ModelStreamInferResponseMsg, DecodedInferRequest } from '../../protocol/grpc/index.js';
import type { DataPlane, Edge, InferCall } from '../../dataplane/index.js';
import type { SharedMemoryRegistry } from '../shm/index.js';
import { RefusedRequest, type InferRequestOrRefusal } from './bounded-infer-deserializer.js';
import { MetadataHeaders } from './metadata-headers.js';
import { requestDeadline } from './request-deadline.js';
import { asEncoded, type StreamForwarder } from '../forward/index.js';
import { StreamBudget, StreamBuffer } from '../stream/index.js';

type StreamCall = ServerDuplexStream<InferRequestOrRefusal, ModelStreamInferResponseMsg>;

/**
 * ModelStreamInfer: any number of requests in flight on one stream; every response is written as
 * soon as it exists (decoupled models and pipelines stream many). Each carries
 * `triton_final_response`. A failed request (a refused message too) answers with `error_message`
 * and the stream stays open. When the client half-closes, the stream ends after the in-flight
 * requests finish; when it cancels (or the connection drops), every in-flight request is
 * unsubscribed, i.e. cancelled.
 *
 * Each open stream puts in `open` a function that ends it (status OK) as soon as its in-flight
 * requests are done, as a half-close would: the server calls them when it stops, so an idle stream
 * does not hold the process up until the forced close.
 *
 * Backpressure: responses are encoded here and accounted in the stream's StreamBuffer from the
 * write until grpc-js' write callback (the bytes went out within the client's HTTP/2 window). The
 * buffer is every request's `demand`, so producers that can wait (scripts awaiting `send`,
 * pipeline steps) pause while an eighth of --stream-buffer-bytes waits, and the stream stops
 * reading new requests meanwhile (HTTP/2 flow control then holds the client). A response that
 * would pass the bound fails its request (TRB_STREAM_BUFFER_FULL) and cancels it. A cancelled
 * stream gives its account back at once; grpc-js drops the queued messages.
 */
export function modelStreamInferHandler(
  plane: DataPlane, shm: SharedMemoryRegistry, open: Set<() => void> = new Set(), edge: Edge = plane.edge(), forward?: StreamForwarder,
  budget: StreamBudget = new StreamBudget(),
): handleBidiStreamingCall<InferRequestOrRefusal, ModelStreamInferResponseMsg> {
  const readSharedMemory = (r: string, o: number, n: number) => shm.read(r, o, n);
  const writeSharedMemory = (r: string, o: number, b: Uint8Array) => shm.write(r, o, b);

  return (call: StreamCall) => {
    const active = new Set<Subscription>();
    // Each request of the stream passes the edge with the stream's metadata (header forwarding,
    // trace joining, experiment stickiness, capture), as a unary call does with its own.
    const headers = new MetadataHeaders(call.metadata);
    let halfClosed = false;
    let closed = false;
    // The stream's traceparent is every request's parent; the initial metadata, sent once before
    // the first response, names the span of the request that answers first (when traced).
    let metadataSent = false;

    const buffer = new StreamBuffer(budget, 'grpc');
    // Reading stops while the buffer is full, so requests pile up in the client, not here.
    let readingPaused = false;
    const resumeReading = () => {
      readingPaused = false;
      if (!closed) call.resume();
    };

    /**
     * Write one message (encoded here, or an owner's answer already in bytes). False when the
     * stream is full: the caller fails its request. `force` writes past the bound (an error).
     */
    const send = (m: ModelStreamInferResponseMsg | Buffer, traceparent?: InferCall['traceparent'], force = false): boolean => {
      if (closed) return true;
      const bytes = Buffer.isBuffer(m) ? m : encodeStreamInferResponse(m);
      if (!buffer.admit(bytes.length, force)) return false;
      if (!metadataSent) {
        metadataSent = true;
        const tp = traceparent?.();
        if (tp) {
          const md = new Metadata();
          md.set('traceparent', tp);
          call.sendMetadata(md);
        }
      }
      const n = bytes.length;
      call.write(asEncoded<ModelStreamInferResponseMsg>(bytes), () => buffer.release(n));
      if (!readingPaused && !buffer.ready) {
        readingPaused = true;
        call.pause();
        buffer.whenReady(resumeReading);
      }
      return true;
    };
    const sendError = (e: unknown, msg: ModelInferRequestMsg) => send({
      error_message: wireMessageOf(e),
      infer_response: {
        model_name: msg.model_name, model_version: msg.model_version ?? '', id: msg.id ?? '',
        parameters: {}, outputs: [], raw_output_contents: [],
      },
    }, undefined, true);
    // serve --replicas: messages of sequences other replicas own go there; their answers come back as bytes.
    // (Answers relayed from another replica are accounted but never refused: they are that replica's to bound.)
    const relay = forward?.(call.metadata, (answer) => { send(answer, undefined, true); }, sendError, () => maybeEnd());
    const endWhenIdle = () => { halfClosed = true; relay?.end(); maybeEnd(); };
    const maybeEnd = () => {
      if (halfClosed && active.size === 0 && !closed && (!relay || relay.idle())) {
        closed = true;
        open.delete(endWhenIdle);
        call.end();
      }
    };
    const cancelAll = () => {
      closed = true;
      relay?.cancel();
      open.delete(endWhenIdle);
      for (const s of active) s.unsubscribe();
      active.clear();
      buffer.close();
    };

    const start = (msg: ModelInferRequestMsg) => {
      let decoded: DecodedInferRequest;
      let decoupled: boolean;
      try {
        decoded = inferRequestFromProto(msg, { readSharedMemory });
        decoupled = plane.isDecoupled(msg.model_name, msg.model_version);
      } catch (e) {
        sendError(e, msg);
        return;
      }
      const { request, placements, emptyFinalResponse: wantEmptyFinal } = decoded;
      const deadline = requestDeadline(call);
      if (deadline !== undefined) request.deadline = deadline;
      const id = request.id ?? '';
      let finalSent = false;
      let finished = false;
      let version = request.version ?? '';
      // Assigned when subscribe() returns: a response emitted inside it sees it undefined.
      let sub: Subscription | undefined;
      const finish = () => {
        finished = true;
        if (sub) active.delete(sub);
        maybeEnd();
      };
      // The stream is full: the request fails and is cancelled (its producer stops).
      const overflow = () => {
        finished = true;
        const o = buffer.overflowed();
        sub?.unsubscribe();
        sendError(Errors.streamBufferFull(request.model, o.held, o.bound, o.flag), msg);
        finish();
      };
      request.demand = buffer;
      let answer: InferCall;
      try {
        answer = edge.infer(request, headers);
      } catch (e) {
        // The edge's refusals (a forwarded header named like a reserved parameter).
        sendError(e, msg);
        return;
      }
      const write = (m: ModelStreamInferResponseMsg) => { if (!send(m, answer.traceparent)) overflow(); };
      sub = answer.responses.subscribe({
        next(resp) {
          if (finished) return;
          version = resp.version;
          if (resp.final && decoupled && resp.outputs.length === 0 && !resp.parameters) {
            // A bare final flag: only sent when the client asked for empty final responses.
            if (wantEmptyFinal) write({ error_message: '', infer_response: emptyFinalResponse(resp.model, resp.version, id) });
            finalSent = true;
            return;
          }
          let m: ModelStreamInferResponseMsg;
          try {
            m = { error_message: '', infer_response: inferResponseToProto(resp, { id, placements, writeSharedMemory, finalFlag: resp.final }) };
          } catch (e) {
            sendError(e, msg);
            return;
          }
          write(m);
          if (resp.final) finalSent = true;
        },
        error(e: unknown) {
          if (finished) return;
          sendError(e, msg);
          finish();
        },
        complete() {
          if (finished) return;
          if (!finalSent && wantEmptyFinal) {
            write({ error_message: '', infer_response: emptyFinalResponse(request.model, version, id) });
          }
          finish();
        },
      });
      if (finished) sub.unsubscribe();
      else active.add(sub);
    };

    call.on('data', (msg: InferRequestOrRefusal) => {
      if (closed) return;
      if (msg instanceof RefusedRequest) sendError(msg.error, { model_name: '', inputs: [] });
      else if (!relay?.take(msg)) start(msg);
    });
    open.add(endWhenIdle);
    call.on('end', endWhenIdle);
    call.on('cancelled', cancelAll);
    call.on('error', cancelAll);
    // Every message written and the status sent (or the call destroyed): nothing is held any more.
    call.on('finish', () => buffer.close());
    call.on('close', () => buffer.close());
  };
}
