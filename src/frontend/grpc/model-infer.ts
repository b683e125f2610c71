import { Metadata, type Deadline, type handleUnaryCall, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { Errors } from '../../errors.js';
import { inferRequestFromProto, inferResponseToProto } from '../../protocol/grpc/index.js';
import type { ModelInferResponseMsg } from '../../protocol/grpc/index.js';
import type { CallerHeaders, DataPlane, Edge, OpenCall } from '../../dataplane/index.js';
import type { StopRequest } from '../../inference/index.js';
import type { SharedMemoryRegistry } from '../shm/index.js';
import { RefusedRequest, type InferRequestOrRefusal } from './bounded-infer-deserializer.js';
import { MetadataHeaders } from './metadata-headers.js';
import { requestDeadline } from './request-deadline.js';
import { toServiceError } from './service-error.js';

/**
 * Unary ModelInfer: one request, one response. Decoupled models are refused (they need a stream).
 * A cancelled call stops the request wherever it is (queue, backend, steps).
 */
export function modelInferHandler(plane: DataPlane, edge: Edge, shm: SharedMemoryRegistry): handleUnaryCall<InferRequestOrRefusal, ModelInferResponseMsg> {
  const answer = modelInferAnswer(plane, edge, shm);
  return (grpcCall: ServerUnaryCall<InferRequestOrRefusal, ModelInferResponseMsg>, callback: sendUnaryData<ModelInferResponseMsg>) =>
    answer(grpcCall, new MetadataHeaders(grpcCall.metadata), callback);
}

/** What answering a unary ModelInfer needs of its call: grpc-js's call has it, and so does fast-model-infer.ts's. */
export interface UnaryInferCall {
  readonly request: InferRequestOrRefusal;
  getDeadline(): Deadline;
  /** Response metadata, sent before the response. */
  sendMetadata(metadata: Metadata): void;
  on(event: 'cancelled', listener: () => void): unknown;
}

/** The answer to one unary ModelInfer, whichever transport carried it. */
export function modelInferAnswer(plane: DataPlane, edge: Edge, shm: SharedMemoryRegistry) {
  const readSharedMemory = (r: string, o: number, n: number) => shm.read(r, o, n);
  const writeSharedMemory = (r: string, o: number, b: Uint8Array) => shm.write(r, o, b);
  return (grpcCall: UnaryInferCall, headers: CallerHeaders, callback: sendUnaryData<ModelInferResponseMsg>): void => {
    const msg = grpcCall.request;
    if (msg instanceof RefusedRequest) {
      callback(toServiceError(msg.error));
      return;
    }
    let decoded;
    let call: OpenCall;
    try {
      decoded = inferRequestFromProto(msg, { readSharedMemory });
      if (plane.isDecoupled(msg.model_name, msg.model_version)) throw Errors.decoupledUnary(msg.model_name);
      const deadline = requestDeadline(grpcCall);
      if (deadline !== undefined) decoded.request.deadline = deadline;
      call = edge.open(decoded.request, headers);
    } catch (e) {
      callback(toServiceError(e));
      return;
    }
    const { request, placements } = decoded;
    let answered = false;
    const answer = (err: unknown, res?: ModelInferResponseMsg) => {
      if (answered) return;
      answered = true;
      if (err !== null) callback(toServiceError(err));
      else {
        // The span that served the request, when it was traced (opentelemetry mode).
        const traceparent = call.traceparent();
        if (traceparent) {
          const md = new Metadata();
          md.set('traceparent', traceparent);
          grpcCall.sendMetadata(md);
        }
        callback(null, res);
      }
    };
    let stop: StopRequest;
    try {
      stop = call.start({
        next(resp) {
          if (answered) return;
          let out: ModelInferResponseMsg;
          try {
            out = inferResponseToProto(resp, { id: request.id, placements, writeSharedMemory });
          } catch (e) {
            answer(e);
            return;
          }
          answer(null, out);
        },
        error: (e: unknown) => answer(e),
        // Only a stream that ended without a response is an error: building it costs a stack trace.
        complete: () => { if (!answered) answer(Errors.noResponse(request.model)); },
      });
    } catch (e) {
      answer(e);
      return;
    }
    if (!answered) grpcCall.on('cancelled', stop);
  };
}
