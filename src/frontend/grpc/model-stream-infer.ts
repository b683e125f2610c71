import { Metadata, type handleBidiStreamingCall, type ServerDuplexStream } from '@grpc/grpc-js';
import type { Subscription } from 'rxjs';
import { toTributaryError } from '../../errors.js';
import { forwardHeaders, wireMessageOf } from '../../protocol/index.js';
import { emptyFinalResponse, inferRequestFromProto, inferResponseToProto } from '../../protocol/grpc/index.js';
import type { ModelInferRequestMsg, ModelStreamInferResponseMsg, DecodedInferRequest } from '../../protocol/grpc/index.js';
import type { DataPlane } from '../../dataplane/index.js';
import type { TraceContext } from '../../inference/index.js';
import type { SharedMemoryRegistry } from '../shm/index.js';
import { RefusedRequest, type InferRequestOrRefusal } from './bounded-infer-deserializer.js';
import { requestDeadline } from './request-deadline.js';
import { asEncoded, type StreamForwarder } from '../forward/index.js';

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
 */
export function modelStreamInferHandler(
  plane: DataPlane, shm: SharedMemoryRegistry, open: Set<() => void> = new Set(), headerPattern?: RegExp, forward?: StreamForwarder,
): handleBidiStreamingCall<InferRequestOrRefusal, ModelStreamInferResponseMsg> {
  const readSharedMemory = (r: string, o: number, n: number) => shm.read(r, o, n);
  const writeSharedMemory = (r: string, o: number, b: Uint8Array) => shm.write(r, o, b);

  return (call: StreamCall) => {
    const active = new Set<Subscription>();
    const headers = headerPattern ? Object.entries(call.metadata.toJSON()) : [];
    let halfClosed = false;
    let closed = false;
    // The stream's traceparent is every request's parent; the initial metadata, sent once before
    // the first response, names the span of the request that answers first (when traced).
    const callerTrace = call.metadata.get('traceparent')[0];
    let metadataSent = false;

    const send = (m: ModelStreamInferResponseMsg, trace?: TraceContext) => {
      if (closed) return;
      if (!metadataSent) {
        metadataSent = true;
        if (trace?.traceparent) {
          const md = new Metadata();
          md.set('traceparent', trace.traceparent);
          call.sendMetadata(md);
        }
      }
      call.write(m);
    };
    const sendError = (e: unknown, msg: ModelInferRequestMsg) => send({
      error_message: wireMessageOf(e),
      infer_response: {
        model_name: msg.model_name, model_version: msg.model_version ?? '', id: msg.id ?? '',
        parameters: {}, outputs: [], raw_output_contents: [],
      },
    });
    // serve --replicas: messages of sequences other replicas own go there; their answers come back as bytes.
    const relay = forward?.(call.metadata, (answer) => send(asEncoded<ModelStreamInferResponseMsg>(answer)), sendError, () => maybeEnd());
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
    };

    const start = (msg: ModelInferRequestMsg) => {
      let decoded: DecodedInferRequest;
      let decoupled: boolean;
      try {
        decoded = inferRequestFromProto(msg, { readSharedMemory });
        decoupled = plane.isDecoupled(msg.model_name, msg.model_version);
        // The stream's headers go with each of its requests.
        const parameters = forwardHeaders(headerPattern, msg.model_name, headers, decoded.request.parameters);
        if (parameters) decoded.request.parameters = parameters;
      } catch (e) {
        sendError(e, msg);
        return;
      }
      const { request, placements, emptyFinalResponse: wantEmptyFinal } = decoded;
      const deadline = requestDeadline(call);
      if (deadline !== undefined) request.deadline = deadline;
      const trace: TraceContext | undefined = typeof callerTrace === 'string' ? (request.traceContext = { parent: callerTrace }) : undefined;
      const id = request.id ?? '';
      let finalSent = false;
      let finished = false;
      let version = request.version ?? '';
      let sub: Subscription | undefined;
      const finish = () => {
        finished = true;
        if (sub) active.delete(sub);
        maybeEnd();
      };
      sub = plane.infer(request).subscribe({
        next(resp) {
          version = resp.version;
          if (resp.final && decoupled && resp.outputs.length === 0 && !resp.parameters) {
            // A bare final flag: only sent when the client asked for empty final responses.
            if (wantEmptyFinal) send({ error_message: '', infer_response: emptyFinalResponse(resp.model, resp.version, id) }, trace);
            finalSent = true;
            return;
          }
          try {
            send({ error_message: '', infer_response: inferResponseToProto(resp, { id, placements, writeSharedMemory, finalFlag: resp.final }) }, trace);
          } catch (e) {
            sendError(e, msg);
          }
          if (resp.final) finalSent = true;
        },
        error(e: unknown) {
          sendError(e, msg);
          finish();
        },
        complete() {
          if (!finalSent && wantEmptyFinal) {
            send({ error_message: '', infer_response: emptyFinalResponse(request.model, version, id) });
          }
          finish();
        },
      });
      if (!finished) active.add(sub);
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
  };
}
