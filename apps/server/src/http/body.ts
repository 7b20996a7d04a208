/**
 * Reading one POST body: at most `limit` bytes are kept; past it the rest is read through the id
 * scanner only (so the 413 answer carries the request's id) and dropped. A body beyond
 * DRAIN_FACTOR × limit is not read further: the connection is closed after the answer.
 */
import type { IncomingMessage } from 'node:http';
import { MessageIdScanner } from './message-id.ts';

const DRAIN_FACTOR = 4;

export type Body =
  | { ok: true; value: unknown }
  | { ok: false; status: 400 | 413; message: string; id: string | number | undefined; drained: boolean };

export async function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  let scanner: MessageIdScanner | undefined;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (!scanner && size > limit) {
      scanner = new MessageIdScanner();
      for (const c of chunks) scanner.feed(c);
      chunks.length = 0;
    }
    if (scanner) {
      scanner.feed(chunk);
      if (size > DRAIN_FACTOR * limit) {
        return { ok: false, status: 413, message: tooLarge(limit), id: undefined, drained: false };
      }
    } else {
      chunks.push(chunk);
    }
  }
  if (scanner) {
    scanner.end();
    return { ok: false, status: 413, message: tooLarge(limit), id: scanner.id, drained: true };
  }
  if (size === 0) return { ok: true, value: undefined };
  const text = Buffer.concat(chunks, size);
  try {
    return { ok: true, value: JSON.parse(text.toString('utf8')) };
  } catch {
    const scan = new MessageIdScanner();
    scan.feed(text);
    scan.end();
    return { ok: false, status: 400, message: 'request body is not valid JSON', id: scan.id, drained: true };
  }
}

function tooLarge(limit: number): string {
  return `request body over ${limit} bytes (${Math.floor(limit / 1048576)} MiB) was discarded: send large files in parts (vm_put_file content up to files.max_bytes; vm_get_file offset/length)`;
}
