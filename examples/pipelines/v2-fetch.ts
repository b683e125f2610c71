/**
 * A dependency-free KServe v2 / Triton HTTP client in ~60 lines, for the pipeline examples:
 * JSON requests, and the binary tensor extension for BYTES inputs that are not text (images).
 * Uses only fetch; works against Tributary and Triton alike.
 */

export interface V2Input {
  name: string;
  datatype: string;
  shape: number[];
  /** JSON data (strings for BYTES, numbers otherwise) */
  data?: (string | number)[];
  /** raw BYTES elements sent with the binary extension instead of JSON */
  bytes?: Uint8Array[];
}

export interface V2Output { name: string; datatype: string; shape: number[]; data: (string | number)[] }
export interface V2Response { model_name: string; model_version?: string; outputs: V2Output[]; parameters?: Record<string, unknown> }

export class V2Error extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

export async function infer(baseUrl: string, model: string, inputs: V2Input[], parameters?: Record<string, string | number | boolean>): Promise<V2Response> {
  const binary: Uint8Array[] = [];
  const header = {
    inputs: inputs.map((i) => {
      if (!i.bytes) return { name: i.name, datatype: i.datatype, shape: i.shape, data: i.data };
      // binary BYTES layout: each element is a 4-byte little-endian length followed by its bytes
      const size = i.bytes.reduce((n, b) => n + 4 + b.length, 0);
      const buf = new Uint8Array(size);
      const view = new DataView(buf.buffer);
      let o = 0;
      for (const b of i.bytes) { view.setUint32(o, b.length, true); buf.set(b, o + 4); o += 4 + b.length; }
      binary.push(buf);
      return { name: i.name, datatype: i.datatype, shape: i.shape, parameters: { binary_data_size: size } };
    }),
    ...(parameters ? { parameters } : {}),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headers: Record<string, string> = { 'content-type': binary.length ? 'application/octet-stream' : 'application/json' };
  let body: Uint8Array = json;
  if (binary.length) {
    headers['inference-header-content-length'] = String(json.length);
    body = new Uint8Array(json.length + binary.reduce((n, b) => n + b.length, 0));
    body.set(json);
    let o = json.length;
    for (const b of binary) { body.set(b, o); o += b.length; }
  }
  const res = await fetch(`${baseUrl}/v2/models/${encodeURIComponent(model)}/infer`, { method: 'POST', headers, body });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try { message = JSON.parse(text).error ?? text; } catch { /* not JSON */ }
    throw new V2Error(res.status, `${model}: HTTP ${res.status}: ${message}`);
  }
  return JSON.parse(text) as V2Response;
}

export function output(res: V2Response, name: string): V2Output {
  const out = res.outputs.find((o) => o.name === name);
  if (!out) throw new Error(`${res.model_name}: response has no output '${name}' (has ${res.outputs.map((o) => o.name).join(', ')})`);
  return out;
}

/** Splits a flat row-major array into rows of the output's last dimension. */
export function rows<T>(out: V2Output, data = out.data as T[]): T[][] {
  const width = out.shape[out.shape.length - 1] ?? 1;
  return Array.from({ length: width ? data.length / width : out.shape[0] ?? 0 }, (_, i) => data.slice(i * width, (i + 1) * width));
}

export const defaultUrl = (): string => process.env.TRIBUTARY_URL ?? 'http://127.0.0.1:8000';
