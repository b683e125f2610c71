/** An OTLP/HTTP receiver for tests: collects the spans an exporter posts as JSON. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
export interface ReceivedSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string;
  attributes: { key: string; value: AnyValue }[];
  events?: { name: string }[];
  links?: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[] };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** One attribute's value as a plain JavaScript value. */
export function attribute(s: ReceivedSpan, key: string): string | number | boolean | undefined {
  const v = s.attributes.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.boolValue;
}
