/**
 * docs/errors.md lists every catalog code with its kind and wire statuses; this keeps the page and
 * src/errors.ts in step both ways (a new code must be documented, a removed one must leave the page).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Errors } from '../../src/errors.js';
import { STATUS_TABLE } from '../../src/protocol/index.js';

const DOC = new URL('../../docs/errors.md', import.meta.url);

interface Row { kind: string; http: number; grpc: number }

function documentedRows(): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const m = /^\| `(TRB_[A-Z0-9_]+)` \| ([A-Z_]+) \| (\d{3}) \| [A-Z_]+ \((\d+)\) \|/.exec(line);
    if (!m) continue;
    assert.ok(!rows.has(m[1]!), `docs/errors.md lists ${m[1]} twice`);
    rows.set(m[1]!, { kind: m[2]!, http: Number(m[3]), grpc: Number(m[4]) });
  }
  return rows;
}

test('docs/errors.md lists every catalog code, and no other', () => {
  const documented = documentedRows();
  const catalog = new Set(Object.values(Errors).map((d) => d.code));
  const missing = [...catalog].filter((c) => !documented.has(c));
  const stale = [...documented.keys()].filter((c) => !catalog.has(c));
  assert.deepEqual(missing, [], `codes missing from docs/errors.md: ${missing.join(', ')}`);
  assert.deepEqual(stale, [], `docs/errors.md lists codes the catalog no longer has: ${stale.join(', ')}`);
});

test('docs/errors.md gives each code the catalog kind and the status table statuses', () => {
  const documented = documentedRows();
  for (const def of Object.values(Errors)) {
    const row = documented.get(def.code);
    if (!row) continue;
    const status = STATUS_TABLE[def.kind];
    assert.deepEqual(row, { kind: def.kind, http: def.httpStatus ?? status.http, grpc: status.grpc }, def.code);
  }
});
