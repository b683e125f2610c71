/**
 * Type-level agreement between types/bls.d.ts (what model authors compile against, resolved
 * through the package's own `tributary/bls` export) and the runtime bundled into every sandbox
 * (backends/typescript/bls/). `tsc --noEmit` compiles this file with the rest of the project, and
 * bls-types.test.ts compiles it again against a drifted declaration to show each check bites.
 * Checks are identity (`Equal`), so a member missing, extra, retyped, made optional or made
 * writable on either side fails.
 */
import type * as Decl from 'tributary/bls';
import type * as Rt from '../../../backends/typescript/bls/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
type Expect<T extends true> = T;

type Primitive = string | number | boolean | bigint | symbol | null | undefined | void;

/**
 * The public view of a type: #private fields make classes nominal (a declared class can never be
 * assignable to the runtime one), so both sides are compared member by member instead. Typed
 * arrays and buffers are the platform's own and stay as they are.
 */
type Shape<T> =
  T extends Primitive | ArrayBufferView | ArrayBufferLike ? T
  : T extends (...args: infer A) => infer R ? (...args: { [I in keyof A]: Shape<A[I]> }) => Shape<R>
  : T extends Promise<infer U> ? Promise<Shape<U>>
  : T extends AsyncIterable<infer U> ? AsyncIterable<Shape<U>>
  : T extends unknown[] ? Shape<T[number]>[]
  : T extends readonly unknown[] ? readonly Shape<T[number]>[]
  : { [K in keyof T]: Shape<T[K]> };

/** A constructor's parameters, and its static members other than the prototype. */
type CtorArgs<C> = C extends abstract new (...args: infer A) => unknown ? { [I in keyof A]: Shape<A[I]> } : never;
type Statics<C, Internal extends PropertyKey = never> = Exclude<keyof C, 'prototype' | Internal>;

// The same values are exported (classes and `logger`).
export type ValueExports = Expect<Equal<keyof typeof Rt, keyof typeof Decl>>;

// Plain types.
export type Types = [
  Expect<Equal<Rt.DataType, Decl.DataType>>,
  Expect<Equal<Rt.TypedArray, Decl.TypedArray>>,
  Expect<Equal<Rt.TensorData, Decl.TensorData>>,
  Expect<Equal<Rt.TensorInit, Decl.TensorInit>>,
  Expect<Equal<Rt.ErrorKind, Decl.ErrorKind>>,
  Expect<Equal<Rt.ParamValue, Decl.ParamValue>>,
  Expect<Equal<Rt.Parameters, Decl.Parameters>>,
  Expect<Equal<Shape<Rt.SendOptions>, Shape<Decl.SendOptions>>>,
  Expect<Equal<Shape<Rt.ResponseSender>, Shape<Decl.ResponseSender>>>,
  Expect<Equal<Shape<Rt.InferenceResponseInit>, Shape<Decl.InferenceResponseInit>>>,
  Expect<Equal<Shape<Rt.InferenceRequestInit>, Shape<Decl.InferenceRequestInit>>>,
  Expect<Equal<Shape<Rt.Logger>, Shape<Decl.Logger>>>,
  Expect<Equal<Shape<typeof Rt.logger>, Shape<typeof Decl.logger>>>,
  Expect<Equal<Rt.MetricKind, Decl.MetricKind>>,
  Expect<Equal<Shape<Rt.MetricFamilyInit>, Shape<Decl.MetricFamilyInit>>>,
  Expect<Equal<Shape<Rt.MetricInit>, Shape<Decl.MetricInit>>>,
  Expect<Equal<Shape<Rt.LoadModelOptions>, Shape<Decl.LoadModelOptions>>>,
  Expect<Equal<Shape<Rt.UnloadModelOptions>, Shape<Decl.UnloadModelOptions>>>,
  Expect<Equal<Shape<typeof Rt.loadModel>, Shape<typeof Decl.loadModel>>>,
  Expect<Equal<Shape<typeof Rt.unloadModel>, Shape<typeof Decl.unloadModel>>>,
  Expect<Equal<Shape<typeof Rt.isModelReady>, Shape<typeof Decl.isModelReady>>>,
];

// Classes: instance members, constructor parameters, static members. `Request` is a class in the
// runtime (scripts never construct it) and an interface in the declaration.
export type Classes = [
  Expect<Equal<Shape<Rt.Tensor>, Shape<Decl.Tensor>>>,
  Expect<Equal<CtorArgs<typeof Rt.Tensor>, CtorArgs<typeof Decl.Tensor>>>,
  Expect<Equal<Statics<typeof Rt.Tensor>, Statics<typeof Decl.Tensor>>>,
  Expect<Equal<Shape<Rt.ModelError>, Shape<Decl.ModelError>>>,
  Expect<Equal<CtorArgs<typeof Rt.ModelError>, CtorArgs<typeof Decl.ModelError>>>,
  // fromWire rebuilds a host error inside the sandbox; it is plumbing, not API.
  Expect<Equal<Statics<typeof Rt.ModelError, 'fromWire'>, Statics<typeof Decl.ModelError>>>,
  Expect<Equal<Shape<Rt.InferenceResponse>, Shape<Decl.InferenceResponse>>>,
  Expect<Equal<CtorArgs<typeof Rt.InferenceResponse>, CtorArgs<typeof Decl.InferenceResponse>>>,
  Expect<Equal<Statics<typeof Rt.InferenceResponse>, Statics<typeof Decl.InferenceResponse>>>,
  Expect<Equal<Shape<Rt.InferenceRequest>, Shape<Decl.InferenceRequest>>>,
  Expect<Equal<CtorArgs<typeof Rt.InferenceRequest>, CtorArgs<typeof Decl.InferenceRequest>>>,
  Expect<Equal<Statics<typeof Rt.InferenceRequest>, Statics<typeof Decl.InferenceRequest>>>,
  Expect<Equal<Shape<Rt.Request>, Shape<Decl.Request>>>,
  // Metric is a class in the runtime (made by MetricFamily.metric) and an interface in the declaration.
  Expect<Equal<Shape<Rt.Metric>, Shape<Decl.Metric>>>,
  Expect<Equal<Shape<Rt.MetricFamily>, Shape<Decl.MetricFamily>>>,
  Expect<Equal<CtorArgs<typeof Rt.MetricFamily>, CtorArgs<typeof Decl.MetricFamily>>>,
  Expect<Equal<Statics<typeof Rt.MetricFamily>, Statics<typeof Decl.MetricFamily>>>,
];
