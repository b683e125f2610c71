/**
 * The shapes of decoded gRPC messages as @grpc/proto-loader delivers them with
 * `PROTO_LOADER_OPTIONS` (keepCase, int64 as decimal strings, enums as names, defaults filled,
 * oneof name in `parameter_choice`, bytes as Buffer). Outgoing messages may use numbers or
 * bigints' decimal strings for int64 fields and Uint8Array for bytes.
 */

/** int64/uint64 fields arrive as decimal strings; numbers are accepted when sending. */
export type Int64 = string | number;

export interface InferParameterMsg {
  parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'double_param' | 'uint64_param';
  bool_param?: boolean;
  int64_param?: Int64;
  string_param?: string;
  double_param?: number;
  uint64_param?: Int64;
}

export type ParameterMap = Record<string, InferParameterMsg>;

export interface InferTensorContentsMsg {
  bool_contents?: boolean[];
  int_contents?: number[];
  int64_contents?: Int64[];
  uint_contents?: number[];
  uint64_contents?: Int64[];
  fp32_contents?: number[];
  fp64_contents?: number[];
  bytes_contents?: Uint8Array[];
}

export interface InferInputTensorMsg {
  name: string;
  datatype: string;
  shape: Int64[];
  parameters?: ParameterMap;
  contents?: InferTensorContentsMsg | null;
}

export interface InferRequestedOutputTensorMsg {
  name: string;
  parameters?: ParameterMap;
}

export interface ModelInferRequestMsg {
  model_name: string;
  model_version?: string;
  id?: string;
  parameters?: ParameterMap;
  inputs: InferInputTensorMsg[];
  outputs?: InferRequestedOutputTensorMsg[];
  raw_input_contents?: Uint8Array[];
}

export interface InferOutputTensorMsg {
  name: string;
  datatype: string;
  shape: Int64[];
  parameters?: ParameterMap;
  contents?: InferTensorContentsMsg | null;
}

export interface ModelInferResponseMsg {
  model_name: string;
  model_version: string;
  id: string;
  parameters?: ParameterMap;
  outputs: InferOutputTensorMsg[];
  raw_output_contents: Uint8Array[];
}

export interface ModelStreamInferResponseMsg {
  error_message: string;
  infer_response: ModelInferResponseMsg | null;
}

export interface ModelRepositoryParameterMsg {
  parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'bytes_param';
  bool_param?: boolean;
  int64_param?: Int64;
  string_param?: string;
  bytes_param?: Uint8Array;
}

export interface LogSettingValueMsg {
  parameter_choice?: 'bool_param' | 'uint32_param' | 'string_param';
  bool_param?: boolean;
  uint32_param?: number;
  string_param?: string;
}
