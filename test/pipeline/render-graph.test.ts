import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePipeline, renderDot, renderMermaid } from '../../src/pipeline/index.js';
import { F4, model, pipeline, resolver } from './pipeline-fixtures.js';

const a = model('a', { X: F4 }, { Y: F4 });
const two = model('two', { L: F4, R: F4 }, { S: F4 });
const gen = model('gen', { X: F4 }, { Y: F4 }, { decoupled: true });
const p = pipeline('g', { IN: F4 }, { OUT: F4 }, [
  { model: 'gen', in: { X: 'IN' }, out: { Y: 'm' } },
  { model: 'a', version: 2, in: { X: 'm' }, out: { Y: 'n' } },
  { model: 'two', in: { L: 'm', R: 'n' }, out: { S: 'OUT' } },
], { decoupled: true });
const plan = compilePipeline(p, resolver(a, two, gen)).plan!;

test('renderMermaid draws every tensor edge from its producer', () => {
  const m = renderMermaid(plan);
  assert.match(m, /^flowchart LR\n/);
  for (const line of ['in_IN -->|"IN"| s0', 's0 -->|"m"| s1', 's0 -->|"m"| s2', 's1 -->|"n"| s2', 's2 -->|"OUT"| out_OUT', 's1["a v2"]']) {
    assert.ok(m.includes(line), `${line}\n${m}`);
  }
});

test('renderDot is a digraph with labelled edges and marks decoupled steps', () => {
  const d = renderDot(plan);
  assert.match(d, /^digraph "g" \{/);
  assert.ok(d.includes('"step:0" [label="gen (decoupled)", shape=box];'), d);
  assert.ok(d.includes('"step:0" -> "step:2" [label="m"];'), d);
  assert.ok(d.includes('"step:2" -> "out:OUT" [label="OUT"];'), d);
  assert.ok(d.trimEnd().endsWith('}'));
});
