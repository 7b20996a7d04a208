/**
 * console(): a ConsoleHandle over a NEW QMP connection per call, to the machine's console monitor
 * (`console.sock`). Core opens one per lease session and closes it when the session ends; the
 * provider keeps no handle. The provider's own monitor (`qmp.sock`: readiness, `quit` on destroy)
 * is never handed out, so an open console cannot stand in the way of a clean teardown. Each
 * monitor serves one client at a time: a second console opened while one is open waits for the
 * greeting and fails after qmp_timeout_ms, saying another client holds the monitor.
 *
 * screendump writes a PNG into the lease's state directory (the path QEMU itself sees), which is
 * read and deleted at once.
 *
 * openVnc: a new stream to QEMU's VNC server (vnc.sock) with the password this handle set through
 * its monitor (qemu-vnc.ts); the caller speaks RFB on it (@vmhub/rfb) and closes it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type ConsoleHandle, type MachineRef, type RawScreen } from '@vmhub/core';
import { QmpClient, QmpError } from './qmp-client.ts';
import { requireLive, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { FILES } from './state-dir.ts';
import { vncOpener } from './qemu-vnc.ts';

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(data: Buffer): { width: number; height: number } {
  if (data.length < 24 || data.readUInt32BE(0) !== 0x89504e47 || data.toString('ascii', 12, 16) !== 'IHDR') {
    throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] screendump did not produce a PNG`, { source: SOURCE });
  }
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

export async function openConsole(rt: QemuRuntime, machine: MachineRef): Promise<ConsoleHandle> {
  const { dir } = await requireLive(rt, machine, 'console');
  // A machine started by a provider version without the console monitor has only qmp.sock.
  const socket = existsSync(join(dir, FILES.console)) ? join(dir, FILES.console) : join(dir, FILES.qmp);
  const connect = () => QmpClient.connect(socket, { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: machine.identity });
  let client: Promise<QmpClient> = connect();
  let closed = false;
  await client;

  const execute = async (command: string, args?: Record<string, unknown>): Promise<unknown> => {
    for (let attempt = 0; ; attempt++) {
      if (closed) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] the console of ${machine.identity} was closed: open a new one with console()`, { source: SOURCE });
      const c = await client;
      try {
        return await c.execute(command, args, rt.qmpTimeoutMs);
      } catch (err) {
        if (err instanceof QmpError) {
          throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] QMP ${command} failed: ${err.message}`, { source: SOURCE, details: { qmp_class: err.errorClass }, cause: err });
        }
        // The connection dropped under us (qemu restarted the monitor, or a timeout poisoned it): one retry on a fresh one.
        if (attempt > 0 || !c.closed || closed) throw err;
        client = connect();
        client.catch(() => undefined); // awaited on the next turn, unless closed meanwhile
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
    openVnc: vncOpener(dir, machine.identity, execute),
    async close(): Promise<void> {
      closed = true;
      (await client.catch(() => undefined))?.close();
    },
  };
}
