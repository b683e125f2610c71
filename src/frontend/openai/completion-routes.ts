/**
 * POST /v1/chat/completions and /v1/completions. A request becomes one model run per choice
 * (prompts × n), each through the data plane's edge like any other inference (metrics, traces,
 * capture, experiments); their texts are gathered into one answer, or streamed as chunks as they
 * come. The client going away, a stop string, or a failed choice cancels the runs still going.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InferCall } from '../../dataplane/index.js';
import type { InferenceRequest } from '../../inference/index.js';
import { StreamBuffer } from '../stream/index.js';
import { buildRequest } from './build-request.js';
import { chunkObject, completionObject, usageChunk, usageOf, type ChoiceResult, type CompletionKind, type Header } from './completion-shapes.js';
import type { OpenAiContext } from './openai-context.js';
import { sendOpenAiError } from './openai-error.js';
import { OpenAiSse } from './openai-sse.js';
import { openAiTarget } from './openai-target.js';
import { objectBody, optionalBool, requiredString } from './read-fields.js';
import { readPrompts } from './read-prompts.js';
import { readSampling } from './read-sampling.js';
import { runChoice, type Choice, type ChoiceEvents, type TokenCounts } from './run-choice.js';

interface Planned { index: number; prompt: number; text: string; request: InferenceRequest }

export function completionHandler(kind: CompletionKind, ctx: OpenAiContext) {
  return (req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // Thrown errors go to the routes' error handler, which answers in OpenAI's shape.
    const body = objectBody(req.body);
    const model = requiredString(body, 'model');
    const target = openAiTarget(ctx.plane, model, kind);
    const sampling = readSampling(body, ctx.limits);
    const prompts = readPrompts(kind, body, target, sampling.n, ctx.limits);
    const echo = kind === 'completions' && optionalBool(body, 'echo') === true;
    const planned: Planned[] = [];
    prompts.forEach((text, p) => {
      for (let i = 0; i < sampling.n; i++) {
        planned.push({ index: p * sampling.n + i, prompt: p, text, request: buildRequest(target, text, target.decl.textOutput, sampling, i) });
      }
    });
    const header: Header = { id: `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID().replaceAll('-', '')}`, created: Math.floor(Date.now() / 1000), model };
    // The stream's account is the demand of every run behind it: set before they start.
    const buffer = sampling.stream ? new StreamBuffer(ctx.streams, 'sse') : undefined;
    if (buffer) for (const p of planned) p.request.demand = buffer;
    const caller = ctx.callerHeaders(req.headers);
    // The edge may refuse a request (a forwarded header named like a reserved parameter): before any run starts.
    const calls: InferCall[] = planned.map((p) => ctx.edge.infer(p.request, caller));
    const runs: Choice[] = [];
    const cancel = () => { for (const r of runs) r.cancel(); };
    const start = (events: (p: Planned) => ChoiceEvents) => {
      for (const [i, p] of planned.entries()) runs.push(runChoice(calls[i]!.responses, target.model, target.decl.textOutput, sampling.stop, events(p)));
    };
    const traceparent = () => calls[0]?.traceparent();
    if (buffer) {
      const sse = new OpenAiSse(reply, { model: target.model, buffer, draining: () => ctx.plane.draining(), traceparent, onClose: cancel });
      const results: ChoiceResult[] = [];
      start((p) => {
        let first = true;
        const text = (piece: string) => {
          if (sse.send(chunkObject(kind, header, p.index, { text: piece, first }))) first = false;
        };
        if (echo) text(p.text);
        return {
          text,
          end(finish, counts) {
            if (first) text('');
            sse.send(chunkObject(kind, header, p.index, { finish }));
            results.push({ index: p.index, prompt: p.prompt, text: '', finish, counts });
            if (results.length < planned.length) return;
            const usage = sampling.includeUsage ? usageOf(results) : undefined;
            if (usage) sse.send(usageChunk(kind, header, usage));
            sse.done();
          },
          error: (e) => sse.fail(e),
        };
      });
      return reply;
    }
    gather(reply, kind, header, planned, echo, start, cancel, traceparent);
    return reply;
  };
}

/** The plain answer: every choice's whole text, once all have ended. */
function gather(
  reply: FastifyReply, kind: CompletionKind, header: Header, planned: readonly Planned[], echo: boolean,
  start: (events: (p: Planned) => ChoiceEvents) => void, cancel: () => void, traceparent: () => string | undefined,
): void {
  const results: ChoiceResult[] = [];
  let done = false;
  reply.raw.on('close', () => {
    if (!done) {
      done = true;
      cancel();
    }
  });
  start((p) => {
    let text = echo ? p.text : '';
    return {
      text: (piece) => { text += piece; },
      end(finish: string, counts: TokenCounts) {
        if (done) return;
        results.push({ index: p.index, prompt: p.prompt, text, finish, counts });
        if (results.length < planned.length) return;
        done = true;
        const tp = traceparent();
        if (tp) reply.header('traceparent', tp);
        reply.type('application/json').send(JSON.stringify(completionObject(kind, header, results, usageOf(results))));
      },
      error(e) {
        if (done) return;
        done = true;
        cancel();
        sendOpenAiError(reply, e);
      },
    };
  });
}
