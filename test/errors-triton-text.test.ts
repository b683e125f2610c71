/**
 * One place owns the phrasing: where Triton raises the same error, the catalog's message starts
 * with Triton's words, verbatim (our detail may follow after "; "). Each row is a string copied
 * from Triton's source, with the file it is in (triton-inference-server/core or /server), the
 * placeholders filled as the catalog entry fills them. `whole`: Triton's tests compare the
 * message whole, so nothing may follow.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Errors, inModel, type TributaryError } from '../src/errors.js';

interface Row { file: string; triton: string; make: () => TributaryError; whole?: boolean }

const ROWS: Row[] = [
  // core
  { file: 'core sequence_batch_scheduler.cc', triton: "inference request for sequence 123 to model 'accumulate' must specify the START flag on the first request of the sequence",
    make: () => Errors.sequenceUnknown('accumulate', '123'), whole: true },
  { file: 'core sequence_batch_scheduler.cc', triton: "inference request to model 'm' must specify batch-size 1 due to requirements of sequence batcher",
    make: () => Errors.sequenceBatchSize('m', 2) },
  { file: 'core sequence_utils.h', triton: "inference request to model 'm' must specify a non-zero or non-empty correlation ID",
    make: () => Errors.sequenceMissingId('m') },
  { file: 'core model.cc', triton: "unexpected inference input 'X' for model 'm'", make: () => Errors.inputUnknown('m', 'X', ['A']) },
  { file: 'core model.cc', triton: "unexpected inference output 'Y' for model 'm'", make: () => Errors.outputUnknown('m', 'Y'), whole: true },
  { file: 'core infer_request.cc', triton: "input 'A' already exists in request", make: () => Errors.inputDuplicate('m', 'A') },
  { file: 'core infer_request.cc', triton: "output 'Y' already exists in request", make: () => Errors.outputDuplicate('m', 'Y') },
  { file: 'core infer_request.cc', triton: "inference input 'B' data-type is 'INT32', but model 'm' expects 'FP32'",
    make: () => Errors.datatypeMismatch('m', 'B', 'FP32', 'INT32'), whole: true },
  { file: 'core infer_request.cc', triton: "unexpected shape for input 'B' for model 'm'. Expected [4], got [3]. ",
    make: () => Errors.shapeMismatch('m', 'B', '[4]', '[3]'), whole: true },
  { file: 'core infer_request.cc', triton: "inference request batch-size must be <= 8 for 'm'", make: () => Errors.batchTooLarge('m', 9, 8) },
  { file: 'core infer_request.cc', triton: "input 'B' batch size does not match other inputs for 'm'", make: () => Errors.inputBatchMismatch('m', 'B', 2, 1) },
  { file: 'core infer_request.cc', triton: "input 'A' has no shape but model requires batch dimension for 'm'", make: () => Errors.inputNoBatchDim('m', 'A'), whole: true },
  { file: 'core infer_request.cc', triton: "input byte size mismatch for input 'INPUT0' for model 'pt_identity'. Expected 32, got 40",
    make: () => inModel(Errors.tensorByteSize('INPUT0', 40, 'FP32', '[1,8]', 32, 8, 4), 'pt_identity') },
  { file: 'core infer_request.cc', triton: "expected 16 string elements for inference input 'INPUT1' for model 'm', got 14",
    make: () => inModel(Errors.tensorBytesCount('INPUT1', 16, 14), 'm'), whole: true },
  { file: 'core infer_request.cc', triton: "unexpected number of string elements 17 for inference input 'INPUT1' for model 'm', expecting 16",
    make: () => inModel(Errors.tensorBytesCount('INPUT1', 16, 17), 'm'), whole: true },
  { file: 'core infer_request.cc', triton: "expected 2 inputs but got 1 inputs for model 'm'. Got input(s) ['A'], but missing required input(s) ['B']. Please provide all required input(s).",
    make: () => Errors.inputMissing('m', ['B'], ['A'], 2, 2), whole: true },
  { file: 'core infer_request.cc', triton: "Raw request must only have 1 input (found 1) to be deduced but got 2 inputs in 'm' model configuration",
    make: () => Errors.rawBinaryInputCount('m', 2) },
  { file: 'core scheduler_utils.cc', triton: 'Exceeds maximum queue size', make: () => Errors.queueFull('m') },
  { file: 'core dynamic_batch_scheduler.cc', triton: 'Request timeout expired', make: () => Errors.timeout('m'), whole: true },
  { file: 'core model_lifecycle.cc (prefixed by model_repository_manager.cc)', triton: "Request for unknown model: 'm' is not found",
    make: () => Errors.modelNotFound('m'), whole: true },
  { file: 'core model_lifecycle.cc (prefixed by model_repository_manager.cc)', triton: "Request for unknown model: 'm' has no available versions",
    make: () => Errors.modelNoVersions('m', 'UNAVAILABLE') },
  { file: 'core model_lifecycle.cc (prefixed by model_repository_manager.cc)', triton: "Request for unknown model: 'm' version 1 is not at ready state",
    make: () => Errors.modelNotReady('m', '1', 'LOADING') },
  { file: 'core model_repository_manager.cc', triton: 'explicit model load / unload is not allowed if polling is enabled',
    make: () => Errors.modelControlDisabled("load 'm'", 'none') },
  { file: 'core model_repository_manager.cc', triton: "failed to load 'm', failed to poll from model repository",
    make: () => Errors.loadPollFailed('m', 'model not found in any model repository') },
  { file: 'core model_repository_manager.cc', triton: "invalid model name '../x', model name must not contain path traversal characters",
    make: () => Errors.invalidModelName('../x', "it contains a path separator ('/' or '\\')", 'traversal') },
  { file: 'core model_repository_manager.cc', triton: 'Model name cannot be empty. Please enter a valid name to deploy.',
    make: () => Errors.invalidModelName('', 'it is empty', 'empty') },
  { file: 'core model_repository_manager.cc', triton: "There are 2 identifiers of model 'm' in global map, model namespace must be provided to resolve ambiguity.",
    make: () => Errors.modelAmbiguous('m', ['r1', 'r2']) },
  // server
  { file: 'server common.h', triton: "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.",
    make: () => Errors.clientShmDisabled(), whole: true },
  { file: 'server shared_memory_manager.cc', triton: "Unable to find shared memory region: 'r'", make: () => Errors.shmRegionUnknown('r'), whole: true },
  { file: 'server shared_memory_manager.cc', triton: "Unable to find system shared memory region: 'r'", make: () => Errors.shmRegionNotFound('r'), whole: true },
  { file: 'server shared_memory_manager.cc', triton: "Unable to find cuda shared memory region: 'r'", make: () => Errors.cudaShmRegionNotFound('r') },
  { file: 'server shared_memory_manager.cc', triton: "shared memory region 'r' already in manager", make: () => Errors.shmRegionExists('r'), whole: true },
  { file: 'server shared_memory_manager.cc', triton: "Unable to open shared memory region: '/key'", make: () => Errors.shmKeyMissing('r', "'/key'") },
  { file: 'server shared_memory_manager.cc', triton: "failed to register shared memory region 'r': invalid args",
    make: () => Errors.shmKeyTooSmall('r', 0, 64, '/key', 32) },
  { file: 'server shared_memory_manager.cc', triton: "Invalid offset + byte size for shared memory region: 'r'",
    make: () => Errors.shmRangeOutside('read', 16, 56, 'r', 64) },
  { file: 'server http_server.cc', triton: "failed to register CUDA shared memory region: 'r', GPUs not supported", make: () => Errors.cudaShmUnsupported('r') },
  { file: 'server http_server.cc', triton: "Shared memory register request has no 'key' field", make: () => Errors.shmRegisterFieldMissing('key'), whole: true },
  { file: 'server http_server.cc', triton: "shared memory size specified with the request for output 'OUT' (8 bytes) should be at least 16 bytes to hold the results",
    make: () => Errors.outputShmTooSmall('m', 'OUT', 8, 16) },
  { file: 'server http_server.cc', triton: "Output can't set both 'shared_memory_region' and 'classification'",
    make: () => Errors.outputShmConflict('OUT', 'classification') },
  { file: 'server http_server.cc', triton: 'Raw input has a byte_size (70 bytes) that exceeds the maximum allowed value of 64 bytes. Use --http-max-input-size to increase the limit.',
    make: () => Errors.httpInputTooLarge('raw', 70, 64), whole: true },
  { file: 'server http_server.cc', triton: 'request JSON size of 70 bytes exceeds the maximum allowed input size of 64 bytes. Use --http-max-input-size to increase the limit.',
    make: () => Errors.httpInputTooLarge('json', 70, 64), whole: true },
  { file: 'server data_compressor.h', triton: 'Decompressed data size exceeds the maximum allowed value of 64 bytes. Use --http-max-input-size to increase the limit.',
    make: () => Errors.httpInputTooLarge('decompressed', undefined, 64), whole: true },
  { file: 'server http_server.cc', triton: 'JSON nesting depth exceeds maximum allowed limit (100)', make: () => Errors.requestJsonTooDeep('inference request', 100) },
  { file: 'server http_server.cc', triton: 'Unsupported compression type', make: () => Errors.httpEncodingUnsupported('br') },
  { file: 'server http_server.cc', triton: 'receiving FP16 data via JSON is not supported. Please use the binary data format for input X',
    make: () => Errors.tensorJsonDatatype('X', 'FP16') },
  { file: 'server http_server.cc', triton: "invalid shape for input 'X': shape [1,-2] contains one or more invalid dimensions",
    make: () => Errors.tensorShapeNegative('X', '[1,-2]') },
  { file: 'server http_server.cc', triton: "This API is restricted, expecting header 'admin-key'", make: () => Errors.restricted('API', 'admin-key'), whole: true },
  { file: 'server classification.cc', triton: "class result not available for output due to unsupported type 'BYTES'",
    make: () => Errors.classificationDatatype('OUT', 'BYTES') },
  { file: 'server grpc/infer_handler.cc', triton: "contents field must not be specified when using raw_input_contents for 'X' for model 'm'",
    make: () => Errors.grpcContentsWithRaw('m', 'X'), whole: true },
  { file: 'server grpc/infer_handler.cc', triton: "unable to find data for input tensor 'X' for model 'm' in request.", make: () => Errors.grpcInputNoData('m', 'X') },
  { file: 'server grpc/infer_handler.cc', triton: "unexpected 'content' provided when using shared memory for input tensor 'X' for model 'm'",
    make: () => Errors.grpcShmAndContents('m', 'X') },
  { file: 'server grpc/infer_handler.cc', triton: "unexpected explicit tensor data for input tensor 'X' for model 'm' of type 'FP32', expected datatype 'INT32'",
    make: () => inModel(Errors.grpcContentsWrongField('X', 'INT32', 'int_contents', 'fp32_contents'), 'm') },
  { file: 'server grpc/infer_handler.cc', triton: "ModelInfer RPC doesn't support models with decoupled transaction policy", make: () => Errors.decoupledUnary('m') },
];

test(`the catalog leads with Triton's words (${ROWS.length} strings from Triton's source)`, () => {
  assert.ok(ROWS.length >= 20);
  for (const { file, triton, make, whole } of ROWS) {
    const message = make().message;
    if (whole) assert.equal(message, triton, `${file}: Triton's message whole`);
    else {
      assert.ok(message.startsWith(triton), `${file}: the message must start with Triton's\n  triton: ${triton}\n  ours:   ${message}`);
      const rest = message.slice(triton.length);
      // What follows Triton's words is ours, after "; " (or Triton's own sentence goes on: " for m", ". NOTE").
      assert.ok(rest === '' || rest.startsWith('; ') || /^[ .]/.test(rest), `${file}: our detail follows after "; "\n  ours: ${message}`);
    }
  }
});

test('a tensor-level error in Triton\'s words names the model inside its sentence once the decoder knows it', () => {
  const e = Errors.tensorByteSize('X', 8, 'FP32', '[3]', 12, 3, 4);
  assert.match(e.message, /^input byte size mismatch for input 'X'\. Expected 12, got 8; /);
  const named = inModel(e, 'echo');
  assert.equal(named.code, e.code);
  assert.match(named.message, /^input byte size mismatch for input 'X' for model 'echo'\. Expected 12, got 8; /);
  // One without Triton's words is prefixed with the model, as before.
  assert.match(inModel(Errors.tensorShapeMissing('X'), 'echo').message, /^model 'echo': tensor 'X': missing 'shape'$/);
});
