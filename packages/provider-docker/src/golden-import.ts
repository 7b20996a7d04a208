/**
 * Read the progress stream the daemon sends for image import and build: newline-separated JSON
 * objects, an `error` field on failure. The last lines go into the error message.
 */
import type { IncomingMessage } from 'node:http';
import { VmhubError } from '@vmhub/core';
import { buildCancelled } from './golden-lock.ts';

interface Progress {
  error?: string;
  tail: string[];
}

async function readLines(res: IncomingMessage, log: (line: string) => void, out: Progress): Promise<void> {
  let buf = '';
  for await (const chunk of res) {
    buf += (chunk as Buffer).toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      try {
        const msg = JSON.parse(line) as { stream?: string; status?: string; error?: string };
        if (msg.error) out.error = msg.error;
        const text = (msg.stream ?? msg.status ?? '').trimEnd();
        if (text) {
          log(text);
          out.tail.push(text);
          if (out.tail.length > 10) out.tail.shift();
        }
      } catch {
        log(line);
      }
    }
  }
}

export async function readProgress(res: IncomingMessage, what: string, log: (line: string) => void, signal?: AbortSignal): Promise<void> {
  const progress: Progress = { tail: [] };
  // Closing the response closes the connection, which is how the daemon learns to stop.
  const onAbort = (): void => { res.destroy(); };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await readLines(res, log, progress);
  } catch (err) {
    if (signal?.aborted) throw buildCancelled(what, signal);
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw buildCancelled(what, signal);
  if ((res.statusCode ?? 0) >= 400 || progress.error) {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [provider-docker] ${what} failed: ${progress.error ?? `HTTP ${res.statusCode}`}\n${progress.tail.join('\n')}`, { source: 'provider-docker' });
  }
}
