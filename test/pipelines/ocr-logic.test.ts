// OCR control flow (decode, det preprocessing, box finding, crops, CTC) over the real PP-OCRv4
// models through onnxruntime in-process: the same modules the `ocr_image` and `ocr_ctc` steps bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { ctcCharset } from '../../pipelines/ocr_ctc/1/ctc-decode.js';
import { decodeImage } from '../../pipelines/ocr_image/1/decode-image.js';
import { OCR_DEFAULTS, readText, type OcrModels } from './read-text-locally.js';
import { pipelineFile } from './pipeline-files.js';
import { renderText } from './render-text.js';

const charset = ctcCharset(readFileSync(pipelineFile('ocr_ctc/1/ppocr_keys_v1.txt'), 'utf8'));
const squash = (s: string) => s.replace(/\s+/g, '').toLowerCase();

async function localModels(): Promise<OcrModels & { release(): Promise<void> }> {
  const det = await ort.InferenceSession.create(pipelineFile('ocr_det/1/model.onnx'));
  const rec = await ort.InferenceSession.create(pipelineFile('ocr_rec/1/model.onnx'));
  return {
    async detect(x, h, w) {
      const out = await det.run({ x: new ort.Tensor('float32', x, [1, 3, h, w]) });
      const t = out[det.outputNames[0]!]!;
      return { data: t.data as Float32Array, dims: t.dims };
    },
    async recognise(x, n, w) {
      const out = await rec.run({ x: new ort.Tensor('float32', x, [n, 3, 48, w]) });
      const t = out[rec.outputNames[0]!]!;
      return { data: t.data as Float32Array, dims: t.dims };
    },
    async release() { await det.release(); await rec.release(); },
  };
}

test('charset has blank + 6623 dictionary lines + space = the recogniser\'s 6625 classes', () => {
  assert.equal(charset.length, 6625);
  assert.equal(charset[0], '');
  assert.equal(charset[6624], ' ');
});

test('reads two rendered lines top to bottom, in PNG and JPEG, with boxes inside the image', async () => {
  const models = await localModels();
  try {
    for (const format of ['png', 'jpeg'] as const) {
      const image = renderText(['ONNX inference', 'Tributary 2024'], { format });
      const lines = await readText(decodeImage(image), models, { ...OCR_DEFAULTS, charset });
      assert.deepEqual(lines.map((l) => l.text), ['ONNX inference', 'Tributary 2024'], format);
      assert.ok(lines[0]!.box.y1 <= lines[1]!.box.y0 + 5, 'first line is above the second');
      for (const l of lines) {
        assert.ok(l.box.x0 >= 0 && l.box.x1 <= 640 && l.box.x0 < l.box.x1 && l.box.y0 < l.box.y1);
        assert.ok(l.score > 0.8 && l.score <= 1, `score ${l.score}`);
      }
    }
  } finally { await models.release(); }
});

test('a blank image has no lines; a transparent PNG is read as if on white', async () => {
  const models = await localModels();
  try {
    assert.deepEqual(await readText(decodeImage(renderText([])), models, { ...OCR_DEFAULTS, charset }), []);
    const lines = await readText(decodeImage(renderText(['Hello'], { transparent: true })), models, { ...OCR_DEFAULTS, charset });
    assert.deepEqual(lines.map((l) => squash(l.text)), ['hello']);
  } finally { await models.release(); }
});
