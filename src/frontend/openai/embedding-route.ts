/**
 * POST /v1/embeddings: one model run per input text (all at once: a model with dynamic batching
 * takes them together), through the data plane's edge. Each answer's embedding output, flattened,
 * is the vector; `encoding_format: base64` sends its float32 little-endian bytes, as OpenAI does
 * (OpenAI's clients ask for base64 by default and decode it).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Subscription } from 'rxjs';
import { Errors } from '../../errors.js';
import type { InferenceResponse } from '../../inference/index.js';
import { bf16ToNumber, halfToNumber, type Tensor } from '../../tensor/index.js';
import { buildRequest } from './build-request.js';
import type { OpenAiContext } from './openai-context.js';
import { fieldError, limitError, sendOpenAiError } from './openai-error.js';
import { openAiTarget } from './openai-target.js';
import { objectBody, optionalInt, optionalString, requiredString, shown, type Body } from './read-fields.js';

function readInputs(body: Body, max: number, maxChars: number): string[] {
  const v = body.input;
  if (v === undefined || v === null) throw fieldError('input', 'is required');
  const list: unknown[] = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
  if (!Array.isArray(v) && typeof v !== 'string') throw fieldError('input', `must be a string or a list of strings, got ${shown(v)}`);
  if (list.length === 0) throw fieldError('input', 'must hold at least one text');
  if (list.length > max) throw limitError('input', 'has', list.length, max);
  return list.map((s, i) => {
    const at = typeof v === 'string' ? 'input' : `input[${i}]`;
    if (typeof s === 'number' || Array.isArray(s)) throw fieldError('input', 'token arrays are not supported: send the input as text');
    if (typeof s !== 'string') throw fieldError(at, `must be a string, got ${shown(s)}`);
    if (s.length === 0) throw fieldError(at, 'must not be empty');
    if (s.length > maxChars) throw limitError(at, 'has length', s.length, maxChars);
    return s;
  });
}

/** The embedding output as float32, whatever float type the model gives. */
function vectorOf(t: Tensor): Float32Array {
  const d = t.data;
  if (d instanceof Float32Array) return d;
  if (t.datatype === 'FP16') return Float32Array.from(d as Uint16Array, halfToNumber);
  if (t.datatype === 'BF16') return Float32Array.from(d as Uint16Array, bf16ToNumber);
  return Float32Array.from(d as ArrayLike<number>);
}

function encode(v: Float32Array, base64: boolean): number[] | string {
  if (!base64) return Array.from(v);
  // Little-endian, as every platform Node runs on here stores floats.
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function embeddingHandler(ctx: OpenAiContext) {
  return (req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const body = objectBody(req.body);
    const model = requiredString(body, 'model');
    const target = openAiTarget(ctx.plane, model, 'embeddings');
    const inputs = readInputs(body, ctx.limits.maxEmbeddingInputs, ctx.limits.maxPromptChars);
    const format = optionalString(body, 'encoding_format') ?? 'float';
    if (format !== 'float' && format !== 'base64') throw fieldError('encoding_format', `must be 'float' or 'base64', got ${shown(format)}`);
    const dimensions = optionalInt(body, 'dimensions', 1, Number.MAX_SAFE_INTEGER);
    const output = target.decl.embeddingOutput;
    const caller = ctx.callerHeaders(req.headers);
    const calls = inputs.map((text) => ctx.edge.infer(buildRequest(target, text, output), caller));
    const vectors: (Float32Array | undefined)[] = new Array(inputs.length);
    const tokens: (number | undefined)[] = new Array(inputs.length);
    const subs: Subscription[] = [];
    let left = inputs.length;
    let done = false;
    const fail = (e: unknown) => {
      if (done) return;
      done = true;
      for (const s of subs) s.unsubscribe();
      sendOpenAiError(reply, e);
    };
    const finish = () => {
      done = true;
      const length = vectors[0]!.length;
      const odd = vectors.findIndex((v) => v!.length !== length);
      if (odd >= 0) return sendOpenAiError(reply, Errors.openaiOutputMissing(model, output, `vectors of ${length} and ${vectors[odd]!.length} values`));
      if (dimensions !== undefined && dimensions !== length) {
        return sendOpenAiError(reply, fieldError('dimensions', `is ${dimensions}, but model '${model}' gives embeddings of ${length} dimensions`));
      }
      const data = vectors.map((v, index) => ({ object: 'embedding', index, embedding: encode(v!, format === 'base64') }));
      const known = tokens.every((t) => t !== undefined);
      const prompt = known ? tokens.reduce((a: number, b) => a + b!, 0) : 0;
      const tp = calls[0]?.traceparent();
      if (tp) reply.header('traceparent', tp);
      return reply.type('application/json').send(JSON.stringify({
        object: 'list', data, model, ...(known ? { usage: { prompt_tokens: prompt, total_tokens: prompt } } : {}),
      }));
    };
    calls.forEach((call, i) => {
      if (done) return; // an earlier run failed as it started: start no more
      const take = (r: InferenceResponse) => {
        const t = r.outputs.find((o) => o.name === output);
        if (t) vectors[i] = vectorOf(t);
        const n = r.parameters?.prompt_tokens;
        if (typeof n === 'number' || typeof n === 'bigint') tokens[i] = Number(n);
      };
      subs.push(call.responses.subscribe({
        next: (r) => {
          if (done) return;
          try { take(r); } catch (e) { fail(e); }
        },
        error: fail,
        complete: () => {
          if (done) return;
          if (!vectors[i]) return fail(Errors.openaiOutputMissing(model, output, 'no vector'));
          if (--left === 0) finish();
        },
      }));
    });
    reply.raw.on('close', () => {
      if (done) return;
      done = true;
      for (const s of subs) s.unsubscribe();
    });
    return reply;
  };
}
