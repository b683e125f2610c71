/**
 * The shadow copy of an experiment's traffic: a copy of an admitted request goes to the mirror
 * model, fire and forget. Its answer is discarded, its errors only counted; at most
 * `maxInflight` copies run at once, and a copy past that bound is dropped (and counted) rather
 * than queued, so a slow mirror costs the clients nothing but the copies it misses.
 */
import type { Subscription } from 'rxjs';
import type { ModelHost } from '../backend/index.js';
import { setCallChain, type CallLink, type CaptureRecord, type InferenceRequest } from '../inference/index.js';
import { releaseExclusive } from '../tensor/index.js';
import type { PlanMirror } from './experiment-plan.js';
import { stablePoint } from './pick-variant.js';

export type MirrorOutcome = 'sent' | 'dropped' | 'failed';

export interface Mirror {
  /**
   * Whether `request` gets a copy (its share of `percent`, and room under the bound); a copy
   * refused for want of room is counted dropped here. A request of a sequence is copied or not as a
   * whole sequence (by its correlation id), so the mirror never sees half a sequence by choice.
   */
  wants(request: InferenceRequest, key: string | undefined): boolean;
  /** Send the copy of a request `wants` said yes to, once the client's request is admitted. */
  send(request: InferenceRequest, chain: readonly CallLink[]): void;
  /** Copies in flight now. */
  inflight(): number;
  /** Cancel every copy in flight (the experiment is unloading). */
  stop(): void;
}

export function createMirror(spec: PlanMirror, host: ModelHost, random: () => number, report: (outcome: MirrorOutcome) => void): Mirror {
  /** The copies in flight, with their capture records (cancelled if the experiment unloads). */
  const running = new Map<Subscription, CaptureRecord | undefined>();
  let count = 0;
  return {
    wants(request, key) {
      if (spec.percent <= 0) return false;
      if (spec.percent < 100) {
        // A salt keeps the copied share independent of the variant the same key picks.
        const point = request.sequence !== undefined && key !== undefined ? stablePoint(`mirror:${key}`) : random();
        if (point * 100 >= spec.percent) return false;
      }
      if (count >= spec.maxInflight) {
        report('dropped');
        return false;
      }
      // From here two models read the request's tensors: neither may move a buffer away.
      for (const t of request.inputs) if (ArrayBuffer.isView(t.data)) releaseExclusive(t.data.buffer);
      return true;
    },
    send(request, chain) {
      if (count >= spec.maxInflight) {
        report('dropped');
        return;
      }
      // A new request, not a spread of the client's: no trace, no signal, no requested outputs.
      const copy: InferenceRequest = { model: spec.model, inputs: request.inputs };
      // A captured request records the copy beside its variant's call, so the two answers compare.
      const rec = request.capture?.open('mirror', spec.model, spec.model, request.inputs);
      if (rec) copy.capture = rec;
      if (spec.version !== undefined) copy.version = spec.version;
      if (request.id !== undefined) copy.id = request.id;
      if (request.parameters !== undefined) copy.parameters = request.parameters;
      if (request.priority !== undefined) copy.priority = request.priority;
      if (request.timeoutUs !== undefined) copy.timeoutUs = request.timeoutUs;
      if (request.deadline !== undefined) copy.deadline = request.deadline;
      if (request.sequence !== undefined) copy.sequence = request.sequence;
      if (request.routingHeaders !== undefined) copy.routingHeaders = request.routingHeaders;
      setCallChain(copy, chain);
      count++;
      report('sent');
      let done = false;
      let sub: Subscription | undefined;
      const end = (error?: unknown) => {
        if (done) return;
        done = true;
        count--;
        if (sub) running.delete(sub);
        rec?.end(error);
        if (error !== undefined) report('failed');
      };
      try {
        sub = host.infer(copy).subscribe({ next: (r) => rec?.respond(r.outputs, r.version), error: (e: unknown) => end(e ?? new Error('failed')), complete: () => end() });
      } catch (e) {
        end(e ?? new Error('failed'));
      }
      if (!done && sub) running.set(sub, rec);
    },
    inflight: () => count,
    stop() {
      for (const [s, rec] of [...running]) {
        s.unsubscribe();
        rec?.cancel();
      }
      running.clear();
      count = 0;
    },
  };
}
