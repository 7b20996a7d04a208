/**
 * logs(): the end of the machine's serial console — serial.log in its state directory, where
 * qemu writes everything the guest sends to its first serial port (ttyS0: the kernel's console
 * with `console=ttyS0`, and whatever the guest writes there), across reboots. Read from the end
 * (at most `max_bytes`, never the whole file); terminal escape sequences and other control
 * characters are dropped, carriage returns end lines.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type MachineLog, type MachineRef } from '@vmhub/core';
import { recordFor, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { FILES } from './state-dir.ts';

// CSI and OSC sequences, then any other C0 control but tab and newline, and DEL.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

export async function serialLog(rt: QemuRuntime, machine: MachineRef, options: { tail: number; max_bytes: number }): Promise<MachineLog> {
  const { dir, record } = await recordFor(rt, machine);
  if (!record) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no state record for ${machine.identity} in ${rt.stateDir}: the machine is gone`, { source: SOURCE });
  const fh = await open(join(dir, FILES.serial), 'r').catch(() => undefined);
  if (!fh) return { source: 'serial console (ttyS0)', lines: [], truncated: false };
  let text: string;
  let cut: boolean;
  try {
    const { size } = await fh.stat();
    const length = Math.min(size, options.max_bytes);
    const buf = Buffer.alloc(length);
    if (length > 0) await fh.read(buf, 0, length, size - length);
    cut = length < size;
    text = buf.toString('utf8');
  } finally {
    await fh.close();
  }
  // A read that starts mid-file starts mid-line: that partial line is dropped.
  if (cut) text = text.slice(text.indexOf('\n') + 1);
  const all = text.replace(/\r\n?/g, '\n').replace(ESCAPES, '').split('\n');
  if (all.at(-1) === '') all.pop();
  return { source: 'serial console (ttyS0)', lines: all.slice(-options.tail), truncated: cut || all.length > options.tail };
}
