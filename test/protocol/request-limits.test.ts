/**
 * The request-shape bounds hold the same way whichever decoder a request goes through: v2 JSON
 * (HTTP) and protobuf (gRPC) refuse the same oversized request with the same code and message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REQUEST_LIMITS, decodeInferRequest } from '../../src/protocol/index.js';
import { inferRequestFromProto, type ModelInferRequestMsg, type ParameterMap } from '../../src/protocol/grpc/index.js';
import { TributaryError } from '../../src/errors.js';

const L = REQUEST_LIMITS;

interface Shape {
  inputs?: number;
  outputs?: number;
  rank?: number;
  params?: Record<string, string | number>;
  inputParams?: Record<string, string | number>;
  outputParams?: Record<string, string | number>;
}

function asJson(s: Shape): unknown {
  const rank = s.rank ?? 1;
  const input = (i: number) => ({
    name: `IN${i}`, datatype: 'FP32', shape: Array(rank).fill(1), data: [1],
    ...(s.inputParams ? { parameters: s.inputParams } : {}),
  });
  return {
    inputs: Array.from({ length: s.inputs ?? 1 }, (_, i) => input(i)),
    ...(s.outputs !== undefined ? { outputs: Array.from({ length: s.outputs }, (_, i) => ({ name: `OUT${i}`, ...(s.outputParams ? { parameters: s.outputParams } : {}) })) } : {}),
    ...(s.params ? { parameters: s.params } : {}),
  };
}

const protoParams = (p: Record<string, string | number>): ParameterMap => Object.fromEntries(Object.entries(p).map(([k, v]) =>
  [k, typeof v === 'string' ? { parameter_choice: 'string_param' as const, string_param: v } : { parameter_choice: 'int64_param' as const, int64_param: v }]));

function asProto(s: Shape): ModelInferRequestMsg {
  const rank = s.rank ?? 1;
  return {
    model_name: 'm',
    inputs: Array.from({ length: s.inputs ?? 1 }, (_, i) => ({
      name: `IN${i}`, datatype: 'FP32', shape: Array(rank).fill(1), contents: { fp32_contents: [1] },
      ...(s.inputParams ? { parameters: protoParams(s.inputParams) } : {}),
    })),
    ...(s.outputs !== undefined ? { outputs: Array.from({ length: s.outputs }, (_, i) => ({ name: `OUT${i}`, ...(s.outputParams ? { parameters: protoParams(s.outputParams) } : {}) })) } : {}),
    ...(s.params ? { parameters: protoParams(s.params) } : {}),
  };
}

/** The error both decoders raise for `s` (asserting they agree), or undefined when both accept it. */
function refusal(s: Shape): TributaryError | undefined {
  const errors = [() => decodeInferRequest(asJson(s), { model: 'm' }), () => inferRequestFromProto(asProto(s))].map((decode) => {
    try {
      decode();
      return undefined;
    } catch (e) {
      assert.ok(e instanceof TributaryError, String(e));
      return e;
    }
  });
  assert.equal(errors[0]?.code, errors[1]?.code, `${errors[0]?.message} vs ${errors[1]?.message}`);
  assert.equal(errors[0]?.message, errors[1]?.message);
  return errors[0];
}

const many = (n: number, value: string | number = 1) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, value]));

const cases: [string, Shape, Shape, string, RegExp][] = [
  ['inputs', { inputs: L.maxInputs }, { inputs: L.maxInputs + 1 }, 'TRB_REQUEST_TOO_MANY_INPUTS', /^model 'm': the request has 1025 inputs, more than the limit of 1024$/],
  ['outputs', { outputs: L.maxOutputs }, { outputs: L.maxOutputs + 1 }, 'TRB_REQUEST_TOO_MANY_OUTPUTS', /^model 'm': the request asks for 1025 outputs/],
  ['rank', { rank: L.maxRank }, { rank: L.maxRank + 1 }, 'TRB_REQUEST_RANK_TOO_LARGE', /^tensor 'IN0': the shape has 65 dimensions, more than the limit of 64$/],
  ['request parameters', { params: many(L.maxParameters) }, { params: many(L.maxParameters + 1) }, 'TRB_REQUEST_TOO_MANY_PARAMETERS', /^request has 65 parameters/],
  ['input parameters', { inputParams: many(L.maxParameters) }, { inputParams: many(L.maxParameters + 1) }, 'TRB_REQUEST_TOO_MANY_PARAMETERS', /^input 'IN0' has 65 parameters/],
  ['output parameters', { outputs: 1, outputParams: many(L.maxParameters) }, { outputs: 1, outputParams: many(L.maxParameters + 1) }, 'TRB_REQUEST_TOO_MANY_PARAMETERS', /^output 'OUT0' has 65 parameters/],
  ['a string value', { params: { s: 'x'.repeat(L.maxParameterValueBytes) } }, { params: { s: 'x'.repeat(L.maxParameterValueBytes + 1) } }, 'TRB_REQUEST_PARAMETER_TOO_LARGE', /^request parameter 's': its value is 65537 bytes, more than the limit of 65536$/],
  ['a value counted in UTF-8 bytes', { params: { s: 'é'.repeat(L.maxParameterValueBytes / 2) } }, { params: { s: 'é'.repeat(L.maxParameterValueBytes / 2 + 1) } }, 'TRB_REQUEST_PARAMETER_TOO_LARGE', /its value is 65538 bytes/],
  ['a name', { params: { ['n'.repeat(L.maxParameterNameBytes)]: 1 } }, { params: { ['n'.repeat(L.maxParameterNameBytes + 1)]: 1 } }, 'TRB_REQUEST_PARAMETER_TOO_LARGE', /^request parameter 'n{64}\.\.\.': its name is 257 bytes/],
];

for (const [what, atLimit, pastLimit, code, message] of cases) {
  test(`${what}: accepted at the limit, refused past it by both decoders with ${code}`, () => {
    assert.equal(refusal(atLimit)?.code, undefined, refusal(atLimit)?.message);
    const e = refusal(pastLimit);
    assert.equal(e?.code, code);
    assert.equal(e?.kind, 'INVALID_ARG');
    assert.match(e!.message, message);
  });
}
