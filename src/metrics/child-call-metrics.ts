/**
 * BLS child calls per caller (the script's model) and callee (tributary families, Triton has no
 * equivalent): a child's own request is in the callee's nv_inference_* families already, but not
 * who called it or how long the script waited for it.
 */
import { Counter, type Registry } from 'prom-client';
import type { ChildCallRecord } from '../model/index.js';

export function createChildCallRecorder(registry: Registry): (r: ChildCallRecord) => void {
  const labelNames = ['caller', 'callee'];
  const registers = [registry];
  const success = new Counter({ name: 'tributary_bls_call_success', help: 'BLS child calls that ended with their last response, per calling script model and called model', labelNames, registers });
  const failure = new Counter({ name: 'tributary_bls_call_failure', help: 'BLS child calls that ended in an error or were cancelled, per calling script model and called model', labelNames, registers });
  const duration = new Counter({ name: 'tributary_bls_call_duration_us', help: 'Cumulative time from a BLS child call starting to its end, success or not, in microseconds', labelNames, registers });
  return (r) => {
    const l = { caller: r.caller, callee: r.callee };
    (r.success ? success : failure).inc(l);
    duration.inc(l, r.ns / 1000);
  };
}
