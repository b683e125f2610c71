import { tempRepo, type TempRepo } from '../../helpers/temp-repo.js';

export interface ScriptModel {
  /** config.pbtxt lines after name and backend. */
  config: string[];
  /** 1/model.ts */
  code: string;
  /** Config parameters (type_check is "off" unless given). */
  params?: Record<string, string>;
}

/**
 * A throw-away repository of script models written inline (type checking off: it costs about a
 * second of load per model and these scripts are checked by the tests that run them).
 */
export function scriptRepo(models: Record<string, ScriptModel>): TempRepo {
  const repo = tempRepo();
  for (const [name, m] of Object.entries(models)) {
    repo.file(`${name}/config.pbtxt`, [
      `name: "${name}"`, 'backend: "typescript"', ...m.config,
      `parameters [ ${Object.entries({ type_check: 'off', ...m.params }).map(([k, v]) => `{ key: "${k}" value: { string_value: "${v}" } }`).join(', ')} ]`, '',
    ].join('\n'));
    repo.file(`${name}/1/model.ts`, m.code);
  }
  return repo;
}

/** Spins the CPU for MS milliseconds and answers [start, end] (Date.now() inside the sandbox). */
const SPIN_CODE = `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const ms = (r.input('MS').data as Int32Array)[0];
      const t0 = Date.now();
      let x = 0;
      while (Date.now() - t0 < ms) x++;
      return new InferenceResponse({ outputs: [new Tensor('T', 'FP64', [2], [t0, Date.now() + (x & 0)])] });
    });
  }
}
`;

export function spinModel(count: number): ScriptModel {
  return {
    config: [
      'max_batch_size: 0',
      'input [ { name: "MS" data_type: TYPE_INT32 dims: [ 1 ] } ]',
      'output [ { name: "T" data_type: TYPE_FP64 dims: [ 2 ] } ]',
      `instance_group [ { count: ${count} kind: KIND_CPU } ]`,
    ],
    code: SPIN_CODE,
  };
}

export const ECHO_MODEL: ScriptModel = {
  config: [
    'max_batch_size: 0',
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]',
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]',
  ],
  code: `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => { const x = r.input('IN'); return new InferenceResponse({ outputs: [new Tensor('OUT', 'FP32', x.shape, x.data)] }); });
  }
}
`,
};

/** CPU-bound by amount of work, not time: N rounds of integer hashing; answers the hash. */
export function workModel(count: number): ScriptModel {
  return {
    config: [
      'max_batch_size: 0',
      'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
      'output [ { name: "H" data_type: TYPE_INT32 dims: [ 1 ] } ]',
      `instance_group [ { count: ${count} kind: KIND_CPU } ]`,
    ],
    code: `import { InferenceResponse, Tensor, type Request } from 'tributary/bls';
export default class Model {
  execute(requests: Request[]): InferenceResponse[] {
    return requests.map((r) => {
      const n = (r.input('N').data as Int32Array)[0];
      let h = 0x811c9dc5;
      for (let i = 0; i < n; i++) h = Math.imul(h ^ i, 0x01000193);
      return new InferenceResponse({ outputs: [new Tensor('H', 'INT32', [1], [h | 0])] });
    });
  }
}
`,
  };
}
