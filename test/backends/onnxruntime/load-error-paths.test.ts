import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OUTSIDE_PLACEHOLDER, relativePaths } from '../../../backends/onnxruntime/load-error-paths.js';

const dir = '/tmp/tributary-load-abc123/up';

test('paths inside the model directory become relative, others a placeholder', () => {
  assert.equal(relativePaths(`Load model from ${dir}/1/model.onnx failed:Protobuf parsing failed.`, [dir]),
    'Load model from 1/model.onnx failed:Protobuf parsing failed.');
  assert.equal(
    relativePaths(`External data path: "../../x" resolved path: "/tmp/tributary-load-abc123/x" allowed directory: "${dir}/1"`, [dir]),
    `External data path: "../../x" resolved path: "${OUTSIDE_PLACEHOLDER}" allowed directory: "1"`);
  assert.equal(relativePaths(`open(${dir}) failed`, [dir]), 'open(.) failed');
});

test('relative names, file:line locations and a common prefix are not mistaken for the directory', () => {
  assert.equal(relativePaths('tensorprotoutils.cc:434 ValidateExternalDataPathFromDir 1/model.onnx', [dir]),
    'tensorprotoutils.cc:434 ValidateExternalDataPathFromDir 1/model.onnx');
  assert.equal(relativePaths(`${dir}-other/secret`, [dir]), OUTSIDE_PLACEHOLDER);
});

test('every given name of the directory is tried (the real path and the one the operator wrote)', () => {
  assert.equal(relativePaths('/real/repo/m/1/model.onnx and /link/repo/m/labels.txt', ['/real/repo/m', '/link/repo/m']), '1/model.onnx and labels.txt');
});
