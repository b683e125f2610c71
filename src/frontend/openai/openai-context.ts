import type { IncomingHttpHeaders } from 'node:http';
import type { CallerHeaders, DataPlane, Edge } from '../../dataplane/index.js';
import type { TributaryError } from '../../errors.js';
import type { StreamBudget } from '../stream/index.js';
import type { OpenAiLimits } from './openai-limits.js';

/** What the OpenAI routes are given by the HTTP front end that serves them. */
export interface OpenAiContext {
  plane: DataPlane;
  /** The HTTP front end's door for inference: every model run of a /v1 request passes it. */
  edge: Edge;
  /** The server's account of streamed responses (shared with SSE and gRPC streams). */
  streams: StreamBudget;
  limits: OpenAiLimits;
  /** The caller's headers as the edge reads them. */
  callerHeaders(headers: IncomingHttpHeaders): CallerHeaders;
  /** A fastify error (body too large, malformed JSON) in the catalog's words. */
  fromFastifyError(error: unknown, jsonBody: string | undefined): TributaryError;
}
