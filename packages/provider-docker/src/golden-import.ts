/**
 * Read the progress stream the daemon sends for image import and build: newline-separated JSON
 * objects, an `error` field on failure. The last lines go into the error message.
 */
import type { IncomingMessage } from 'node:http';
import { VmhubError } from '@vmhub/core';

export async function readProgress(res: IncomingMessage, what: string, log: (line: string) => void): Promise<void> {
  let buf = '';
  let error: string | undefined;
  const tail: string[] = [];
  for await (const chunk of res) {
    buf += (chunk as Buffer).toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      try {
        const msg = JSON.parse(line) as { stream?: string; status?: string; error?: string };
        if (msg.error) error = msg.error;
        const text = (msg.stream ?? msg.status ?? '').trimEnd();
        if (text) {
          log(text);
          tail.push(text);
          if (tail.length > 10) tail.shift();
        }
      } catch {
        log(line);
      }
    }
  }
  if ((res.statusCode ?? 0) >= 400 || error) {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [provider-docker] ${what} failed: ${error ?? `HTTP ${res.statusCode}`}\n${tail.join('\n')}`, { source: 'provider-docker' });
  }
}
