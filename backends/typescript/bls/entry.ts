import { children, current, discardStarts, host, onLoop, scratch } from './host-channel.js';
import { discardSends, flushSends, resume } from './send-queue.js';
import { discardMetrics, flushMetrics } from './metric-family.js';
import { responseToWire } from './inference-response.js';
import { ModelError, errorToWire } from './model-error.js';
import { Request } from './request.js';
import { IN_SCRATCH } from './scratch.js';
import { utf8Decode } from './utf8.js';
import {
  DELIVER_COMPLETE, DELIVER_ERROR, DELIVER_RESPONSE,
  type WireError, type WireInitArgs, type WireRequest, type WireResponse,
} from './wire.js';

interface ScriptModel {
  initialize?(args: unknown): unknown;
  execute(requests: Request[]): unknown;
  finalize?(): unknown;
  isReady?(): unknown;
}

/**
 * initialize() and isReady() answer the host with a bare yes or no: an empty response list for
 * yes (the model has isReady(); it says ready), null for no.
 */
const YES: WireResponse[] = [];

/**
 * Wires the script's default export to the host: installs the functions the host calls
 * (`__trb_init`, `__trb_execute`, `__trb_deliver`, `__trb_finalize`, `__trb_resume`,
 * `__trb_ready`, `__trb_discard`). Every async result goes back through `host().done(callId, ...)`; the host
 * calls in synchronously and isolated-vm drains the microtask queue before returning, so a script
 * that never awaits the host completes in one entry.
 */
function isThenable(v: unknown): boolean {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

export function install(ModelClass: unknown): void {
  const g = globalThis as Record<string, unknown>;
  let model: ScriptModel | undefined;
  let decoupled = false;

  // Responses still queued by ResponseSender.send reach the host before the call's outcome does, and
  // so do the call's metric changes (a statistic read after the answer sees them).
  const fail = (callId: number, e: unknown) => { flushSends(); flushMetrics(); host().done(callId, null, errorToWire(e)); };
  const complete = (callId: number, v: unknown, map: (v: unknown) => WireResponse[] | null) => {
    let out: WireResponse[] | null;
    try { out = map(v); } catch (e) { fail(callId, e); return; }
    flushSends();
    flushMetrics();
    if (!scratch.writeCompletion(callId, out)) host().done(callId, out, null);
  };
  const run = (callId: number, f: () => unknown, map: (v: unknown) => WireResponse[] | null, loop = false) => {
    current.callId = callId;
    onLoop.now = loop;
    let p: unknown;
    try { p = f(); } catch (e) { fail(callId, e); return; }
    if (isThenable(p)) { Promise.resolve(p).then((v) => complete(callId, v, map), (e) => fail(callId, e)); return; }
    // A synchronous result completes now: no promise, no microtask hop.
    complete(callId, p, map);
  };

  g.__trb_init = (callId: number, a: WireInitArgs) => {
    decoupled = a.decoupled;
    run(callId, () => {
      if (typeof ModelClass !== 'function') {
        throw new ModelError(`model.ts must default-export a class with execute(requests) (got ${ModelClass === undefined ? 'no default export' : typeof ModelClass})`);
      }
      model = new (ModelClass as new () => ScriptModel)();
      if (typeof model.execute !== 'function') throw new ModelError('the default-exported class has no execute(requests) method');
      const names = Object.keys(a.files);
      const file = (name: string) => {
        const f = a.files[name];
        if (!f) throw new ModelError(`no file '${name}' in the model directory (files: ${names.map((n) => `'${n}'`).join(', ')})`, 'NOT_FOUND');
        return f;
      };
      const args = {
        config: a.config, modelName: a.modelName, modelVersion: a.modelVersion, instanceIndex: a.instanceIndex,
        files: a.files,
        readText: (name: string) => utf8Decode(file(name)),
        readJson: (name: string) => {
          const text = utf8Decode(file(name));
          try { return JSON.parse(text); } catch (e) { throw new ModelError(`file '${name}' is not valid JSON: ${(e as Error).message}`, 'INVALID_ARG'); }
        },
      };
      return model.initialize?.(args);
    }, () => (typeof model?.isReady === 'function' ? YES : null));
  };

  g.__trb_execute = (callId: number, arg: WireRequest[] | number, loop?: boolean) => {
    const wire = arg === IN_SCRATCH ? scratch.readRequests() : arg as WireRequest[];
    run(callId, () => model!.execute(wire.map((w, i) => new Request(w, callId, i, decoupled))), (v) => {
      if (decoupled) return null;
      if (!Array.isArray(v)) throw new ModelError(`execute() must return an array of InferenceResponse (one per request), got ${v === undefined ? 'undefined' : typeof v}`);
      if (v.length !== wire.length) throw new ModelError(`execute() returned ${v.length} responses for ${wire.length} requests; return exactly one per request, in order`);
      return v.map((r, i) => responseToWire(r, `execute() response ${i}`));
    }, loop === true);
  };

  g.__trb_deliver = (callId: number, childId: number, kind: number, arg: WireResponse | WireError | null | number, final: boolean, loop?: boolean) => {
    const payload = arg === IN_SCRATCH ? scratch.readResponse() : arg as WireResponse | WireError | null;
    current.callId = callId;
    onLoop.now = loop === true;
    const c = children.get(childId);
    if (!c) return;
    if (kind === DELIVER_RESPONSE) {
      c.response(payload as WireResponse, final);
      if (final) { children.delete(childId); c.complete(); }
    } else if (kind === DELIVER_ERROR) {
      children.delete(childId);
      c.error(payload as WireError);
    } else if (kind === DELIVER_COMPLETE) {
      children.delete(childId);
      c.complete();
    }
  };

  g.__trb_finalize = (callId: number) => run(callId, () => model?.finalize?.(), () => null);

  // Asked by the model ready endpoint (script-isolate.ts), only of a model that has isReady().
  g.__trb_ready = (callId: number) => run(callId, () => model!.isReady!(), (v) => (v === true ? YES : null));

  // A run the host stopped on the main thread is re-run from the start: its metric changes go, and
  // so do its children's receivers (the re-run makes its own; the host delivers nothing more to
  // these, so the stopped run's awaits never resume).
  g.__trb_discard = (callId: number) => {
    onLoop.now = false;
    discardMetrics();
    discardStarts(callId);
    discardSends(callId);
    for (const [id, c] of children) if (c.callId === callId) children.delete(id);
  };

  // A paused request's client took its responses (open), or the request is gone (send-queue.ts).
  g.__trb_resume = (callId: number, index: number, open: boolean) => {
    current.callId = callId;
    onLoop.now = false;
    resume(callId, index, open);
  };
}
