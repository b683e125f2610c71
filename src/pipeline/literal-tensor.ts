import type { ModelConfig } from '../config/index.js';
import { createTensor, fromConfigType, type DataType, type Tensor } from '../tensor/index.js';

/**
 * A `return` literal as a tensor of the pipeline output's datatype and dims (-1 read as 1; the
 * batch dim is not included: the run repeats the literal to the request's batch size). One value
 * fills the shape; several must match its element count. Returns the problem text instead when
 * a value does not fit the datatype.
 */
export function literalTensor(config: ModelConfig, output: string, values: readonly string[]): Tensor | string {
  const o = config.output.find((x) => x.name === output);
  if (!o) return `${output} is not an output of the pipeline`;
  const datatype = (fromConfigType(o.data_type) ?? o.data_type) as DataType;
  const shape = (o.reshape?.shape ?? o.dims).map((d) => (d === -1 ? 1 : d));
  const count = shape.reduce((a, b) => a * b, 1);
  if (values.length !== 1 && values.length !== count) {
    return `${values.length} values do not fill output ${output}'s shape [${shape.join(',')}] (${count} elements); give one value or ${count}`;
  }
  const parsed: (string | number | boolean)[] = [];
  for (const v of values) {
    const x = parseValue(datatype, v);
    if (x === undefined) return `${JSON.stringify(v)} is not a ${datatype} value (output ${output} is ${datatype})`;
    parsed.push(x);
  }
  const data = values.length === count ? parsed : new Array<string | number | boolean>(count).fill(parsed[0]!);
  return createTensor(output, datatype, shape, data as readonly string[]);
}

function parseValue(datatype: DataType, v: string): string | number | boolean | undefined {
  if (datatype === 'BYTES') return v;
  if (datatype === 'BOOL') return v === 'true' ? true : v === 'false' ? false : undefined;
  const n = Number(v.trim());
  if (v.trim() === '' || Number.isNaN(n)) return undefined;
  if (/^U?INT/.test(datatype) && !Number.isInteger(n)) return undefined;
  if (/^UINT/.test(datatype) && n < 0) return undefined;
  return n;
}
