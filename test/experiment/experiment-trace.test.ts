/**
 * Traces carry the variant: in opentelemetry mode a traced request to an experiment has the
 * experiment's span with the attribute `tributary.experiment_variant`, and its variant's span as
 * the child, exported over OTLP to a real receiver.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDataPlane } from '../../src/dataplane/index.js';
import { startHttpServer } from '../../src/frontend/http/index.js';
import { createLogger } from '../../src/logger.js';
import { createServer } from '../../src/server/index.js';
import { Tracer } from '../../src/trace/index.js';
import { quietLog } from '../helpers/quiet-log.js';
import { tempRepo } from '../helpers/temp-repo.js';
import { attribute, startOtlpReceiver } from '../trace/otlp-receiver.js';

quietLog([]);

const identity = (name: string) => `name: "${name}"\nbackend: "identity"\nmax_batch_size: 0\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\n`;

test('the experiment span names its variant, and the variant span is its child', async (t) => {
  const repo = tempRepo({
    'one/config.pbtxt': identity('one'), 'one/1/model.identity': '',
    'two/config.pbtxt': identity('two'), 'two/1/model.identity': '',
    'split/config.yaml': 'name: split\nexperiment:\n  variants:\n    - { model: one }\n    - { model: two }\n',
  });
  t.after(() => repo.remove());
  const otlp = await startOtlpReceiver();
  t.after(() => otlp.close());
  const tracer = new Tracer(createLogger('trace'), { url: otlp.url, resource: {}, bspScheduleDelayMs: 50 });
  const server = await createServer({ modelRepository: repo.dir, tracer });
  const plane = createDataPlane(server, { tracer, traceSettings: { trace_mode: 'opentelemetry', trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
  const http = await startHttpServer(server, { port: 0, host: '127.0.0.1', dataPlane: plane });
  const answers: { variant: string; traceparent: string }[] = [];
  try {
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`http://127.0.0.1:${http.port}/v2/models/split/infer`, {
        method: 'POST', headers: { 'content-type': 'application/json', traceparent: `00-${String(i + 1).padStart(32, 'c')}-${'d'.repeat(16)}-01` },
        body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] }] }),
      });
      const body = (await res.json()) as { parameters: Record<string, string> };
      answers.push({ variant: body.parameters.experiment_variant!, traceparent: res.headers.get('traceparent')! });
    }
  } finally {
    await http.close();
    await server.close(); // flushes the exporter
  }
  for (const a of answers) {
    const [, traceId, spanId] = a.traceparent.split('-');
    const span = otlp.spans.find((s) => s.traceId === traceId && s.spanId === spanId);
    assert.ok(span, `the experiment's span of ${a.traceparent}`);
    assert.equal(span.name, 'split');
    assert.equal(attribute(span, 'tributary.experiment_variant'), a.variant);
    const child = otlp.spans.find((s) => s.traceId === traceId && s.parentSpanId === spanId && s.name === a.variant);
    assert.ok(child, `the variant '${a.variant}' traced under the experiment`);
  }
});
