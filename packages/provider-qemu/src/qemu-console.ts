/**
 * The ConsoleHandle over QMP: one persistent monitor connection per machine, reopened when it
 * drops. screendump writes a PNG into the lease's state directory (the path QEMU itself sees),
 * which is read and deleted at once.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type ConsoleHandle, type RawScreen } from '@vmhub/core';
import { QmpClient, QmpError } from './qmp-client.ts';
import { FILES } from './state-dir.ts';

const SOURCE = 'provider-qemu';

/** Pooled QMP connections, keyed by identity. */
export class QmpPool {
  #conns = new Map<string, Promise<QmpClient>>();
  #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** The pooled connection, opening one (bounded by `timeoutMs`, default the pool's) when none is open. */
  async get(identity: string, dir: string, timeoutMs = this.#timeoutMs): Promise<QmpClient> {
    const existing = this.#conns.get(identity);
    if (existing) {
      const client = await existing.catch(() => undefined);
      if (client && !client.closed) return client;
      this.#conns.delete(identity);
    }
    const pending = QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs, label: identity });
    this.#conns.set(identity, pending);
    pending.catch(() => { if (this.#conns.get(identity) === pending) this.#conns.delete(identity); });
    return pending;
  }

  async drop(identity: string): Promise<void> {
    const pending = this.#conns.get(identity);
    this.#conns.delete(identity);
    const client = await pending?.catch(() => undefined);
    client?.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#conns.keys()].map((id) => this.drop(id)));
  }
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(data: Buffer): { width: number; height: number } {
  if (data.length < 24 || data.readUInt32BE(0) !== 0x89504e47 || data.toString('ascii', 12, 16) !== 'IHDR') {
    throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] screendump did not produce a PNG`, { source: SOURCE });
  }
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

export function createQemuConsole(pool: QmpPool, identity: string, dir: string, timeoutMs: number): ConsoleHandle {
  const execute = async (command: string, args?: Record<string, unknown>): Promise<unknown> => {
    for (let attempt = 0; ; attempt++) {
      const client = await pool.get(identity, dir);
      try {
        return await client.execute(command, args, timeoutMs);
      } catch (err) {
        if (err instanceof QmpError) {
          throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] QMP ${command} failed: ${err.message}`, { source: SOURCE, details: { qmp_class: err.errorClass }, cause: err });
        }
        // The connection dropped under us (qemu restarted the monitor, or a timeout poisoned it): one retry.
        if (attempt > 0 || !client.closed) throw err;
      }
    }
  };
  return {
    kind: 'qmp',
    execute,
    async screendump(): Promise<RawScreen> {
      const file = join(dir, `screen-${randomUUID()}.png`);
      try {
        await execute('screendump', { filename: file, format: 'png' });
        const data = await readFile(file);
        const { width, height } = pngSize(data);
        return { data, format: 'png', width, height };
      } finally {
        await rm(file, { force: true });
      }
    },
    async close(): Promise<void> {
      await pool.drop(identity);
    },
  };
}
