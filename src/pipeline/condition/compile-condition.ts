import { checkCondition } from './check-condition.js';
import type { Ir } from './condition-ir.js';
import type { CompiledCondition, Condition, ConditionEnv } from './condition-types.js';
import { ABSENT, emitClosures } from './emit-closures.js';
import { parseCondition } from './parse-condition.js';

/**
 * Parse, type-check and compile `source` against the tensors `env` knows. Problems come back with
 * the offset and length of the token at fault (the caller maps them to file:line:col); there is a
 * condition only when there is no problem.
 */
export function compileCondition(source: string, env: ConditionEnv): CompiledCondition {
  const { ast, problems } = parseCondition(source);
  if (!ast) return { problems };
  const ir = checkCondition(source, ast, env, problems);
  if (problems.length) return { problems };
  const root = emitClosures(source, ir);
  const condition: Condition = {
    source,
    reads: readsOf(ir),
    evaluate(read, params) {
      try {
        return root(read, params) === true;
      } catch (e) {
        if (e === ABSENT) return false;
        throw e;
      }
    },
  };
  return { condition, problems };
}

function readsOf(root: Ir): string[] {
  const seen = new Set<string>();
  const walk = (ir: Ir | undefined): void => {
    if (!ir) return;
    if (ir.k === 'tensor') { seen.add(ir.name); return; }
    for (const child of Object.values(ir)) {
      if (Array.isArray(child)) child.forEach((c: Ir) => walk(c));
      else if (child && typeof child === 'object' && 'k' in child) walk(child as Ir);
    }
  };
  walk(root);
  return [...seen];
}
