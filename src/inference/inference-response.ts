import type { Tensor } from '../tensor/index.js';
import type { Parameters } from './inference-request.js';

export interface InferenceResponse {
  model: string;
  version: string;
  id?: string;
  outputs: Tensor[];
  parameters?: Parameters;
  /** Last response of the request. A decoupled model may end with an empty final response. */
  final: boolean;
}
