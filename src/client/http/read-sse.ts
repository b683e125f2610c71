import type { IncomingMessage } from 'node:http';

export interface SseEvent { event?: string; data: string }

/**
 * Server-sent events from a response stream (https://html.spec.whatwg.org/#event-stream-interpretation,
 * the subset servers here send: `event:` and `data:` lines, blank-line separated). Returning
 * early (a `break` in the caller) destroys the response, which closes the connection.
 */
export async function* readSse(res: IncomingMessage): AsyncGenerator<SseEvent> {
  res.setEncoding('utf8');
  let buf = '';
  for await (const chunk of res as AsyncIterable<string>) {
    buf += chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let event: string | undefined;
      let data: string | undefined;
      for (const line of block.split('\n')) {
        if (line.startsWith('data:')) {
          const v = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
          data = data === undefined ? v : `${data}\n${v}`;
        } else if (line.startsWith('event:')) {
          event = line.slice(6).trim();
        }
      }
      if (data !== undefined) yield event === undefined ? { data } : { event, data };
    }
  }
}
