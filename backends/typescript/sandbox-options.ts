import { Errors } from '../../src/errors.js';
import { configParam, configParamInt, type ModelConfig } from '../../src/config/index.js';

/**
 * Per-model sandbox settings, from config `parameters` (string values, as Triton's python backend
 * reads its own):
 * - `memory_limit_mb` (default 128): V8 heap limit of each isolate; past it the isolate is disposed.
 * - `timeout_ms` (default 5000): script time allowed per execute() call, summed over the slices
 *   the script runs between awaits (wall time of each slice on its thread; time spent awaiting BLS
 *   children does not count).
 * - `type_check` (default "error"): "error" fails the load on a TypeScript type error, because a
 *   script that does not type-check against tributary/bls is the likeliest to fail on requests;
 *   "warn" logs the errors and loads anyway; "off" skips the check (saves about a second of load).
 * - `isolate_spares` (default 1): initialized isolates kept ready per instance, so a script that is
 *   replaced after a crash, timeout or memory blow-up never costs an isolate start on the request path.
 * - `response_timeout_ms` (default 60000): decoupled models only; a request with no deadline of its
 *   own that has not had its final response this long after execute() started is failed and
 *   released (a request's deadline, from its timeout, takes precedence).
 * - `allow_webassembly` (default "false"): WebAssembly is removed from the sandbox unless "true",
 *   because WebAssembly.Memory is allocated outside the V8 heap and so escapes memory_limit_mb
 *   (a 64 MB script grew the server by 2.8 GB). Turned on, wasm memory is not limited by it.
 * - `fast_path_ms` (default 1, 0 for a model with sequence_batching or a decoupled one; 0..2,
 *   0 = off): how long a call's execute() may run synchronously on the main thread when the
 *   instance's recent calls were short (fast-path-gate.ts). Past it isolated-vm stops the call and
 *   it is re-run from the start on the isolate thread. 1 rather than 2: the stop itself lands
 *   0.1-6 ms late on a loaded machine (isolated-vm's timer thread must be scheduled), and the loop
 *   must not stall past 2 ms. Off for sequence models because a re-run sees whatever state the
 *   stopped attempt left; off for decoupled ones because their streams run on after execute()
 *   returns, in the same entry until they wait (for their client, a child): a stream of a thousand
 *   responses ran past the bound, and the stop cut it dead where it stood.
 * - `ready_timeout_ms` (default 1000): how long the model ready endpoint waits for the script's
 *   isReady() before it answers not ready. A readiness probe is polled every few seconds and
 *   must answer well inside its own timeout (Kubernetes' default is 1 s).
 */
export interface SandboxOptions {
  memoryLimitMb: number;
  timeoutMs: number;
  typeCheck: 'error' | 'warn' | 'off';
  spares: number;
  responseTimeoutMs: number;
  webAssembly: boolean;
  fastPathMs: number;
  readyTimeoutMs: number;
}

export function sandboxOptions(config: ModelConfig): SandboxOptions {
  const memoryLimitMb = configParamInt(config, 'memory_limit_mb', 128);
  const timeoutMs = configParamInt(config, 'timeout_ms', 5000);
  const spares = configParamInt(config, 'isolate_spares', 1);
  const tc = (configParam(config, 'type_check') ?? 'error').trim().toLowerCase();
  const responseTimeoutMs = configParamInt(config, 'response_timeout_ms', 60_000);
  const wasm = (configParam(config, 'allow_webassembly') ?? 'false').trim().toLowerCase();
  const fastPathMs = configParamInt(config, 'fast_path_ms', config.sequence_batching || config.model_transaction_policy?.decoupled ? 0 : 1);
  const readyTimeoutMs = configParamInt(config, 'ready_timeout_ms', 1000);
  const problems: string[] = [];
  if (fastPathMs < 0 || fastPathMs > 2) problems.push(`parameter fast_path_ms must be 0..2, got ${fastPathMs}`);
  if (readyTimeoutMs < 1) problems.push(`parameter ready_timeout_ms must be at least 1, got ${readyTimeoutMs}`);
  if (responseTimeoutMs < 1) problems.push(`parameter response_timeout_ms must be at least 1, got ${responseTimeoutMs}`);
  if (wasm !== 'true' && wasm !== 'false') problems.push(`parameter allow_webassembly must be "true" or "false", got "${wasm}"`);
  if (memoryLimitMb < 8) problems.push(`parameter memory_limit_mb must be at least 8, got ${memoryLimitMb}`);
  if (timeoutMs < 1) problems.push(`parameter timeout_ms must be at least 1, got ${timeoutMs}`);
  if (spares < 0 || spares > 8) problems.push(`parameter isolate_spares must be 0..8, got ${spares}`);
  if (tc !== 'error' && tc !== 'warn' && tc !== 'off') problems.push(`parameter type_check must be "error", "warn" or "off", got "${tc}"`);
  if (problems.length) throw Errors.modelLoadFailed(config.name, problems.join('; '));
  return { memoryLimitMb, timeoutMs, typeCheck: tc as SandboxOptions['typeCheck'], spares, responseTimeoutMs, webAssembly: wasm === 'true', fastPathMs, readyTimeoutMs };
}
