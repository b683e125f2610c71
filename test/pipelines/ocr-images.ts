// The images the OCR pipeline is checked on, by case name. scripts/write-ocr-expected.ts recorded
// the former `ocr` orchestrator's answers to exactly these in ocr-expected.json.
import { readFileSync } from 'node:fs';
import { renderText } from './render-text.js';

export function ocrImages(): [string, Uint8Array[]][] {
  return [
    ['two lines, PNG', [renderText(['ONNX inference', 'Tributary 2024'])]],
    ['two lines, JPEG', [renderText(['ONNX inference', 'Tributary 2024'], { format: 'jpeg' })]],
    ['the README sample', [readFileSync(new URL('../../examples/pipelines/sample-text.png', import.meta.url))]],
    ['a transparent PNG', [renderText(['Hello'], { transparent: true })]],
    ['a blank image', [renderText([])]],
    ['a batch of 1 and 3 lines', [renderText(['Hello']), renderText(['first line', 'second line', 'third line'])]],
  ];
}
