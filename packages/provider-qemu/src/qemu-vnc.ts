/**
 * QEMU's built-in VNC server as a console stream. Every machine is started with
 * `-vnc unix:<state dir>/vnc.sock,password=on` (qemu-argv.ts): a unix socket inside the lease's
 * 0700 state directory, so nothing listens on a TCP port, and VNC auth on top. A VNC server with
 * password=on and no password set refuses everyone, so a console handle sets a random 8-character
 * password (VNC auth uses 8 bytes) through QMP `change-vnc-password` the first time it opens a
 * stream, and hands it out with each stream it opens. Changing the password does not drop
 * connections already authenticated (checked on QEMU 7.2), so a second console handle (a later
 * lease session) does not cut off the first one's viewers, and a handle's own streams share one
 * password so concurrent handshakes never race a change.
 *
 * A machine started with `vnc: 'none'` (qemu-argv's input; no password) is detected through
 * `query-vnc` (auth "none") and its streams come without a password.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { VmhubError } from '@vmhub/core';
import { SOURCE } from './qemu-runtime.ts';

/** The VNC server's socket in the machine's state directory. */
export const VNC_SOCKET = 'vnc.sock';

/** How a machine's VNC server is started: with a password set per console (default), without one, or not at all. */
export type VncMode = 'password' | 'none' | 'off';

/** The `-vnc` argument for a mode, or undefined for 'off'. */
export function vncArg(dir: string, mode: VncMode): string | undefined {
  if (mode === 'off') return undefined;
  return `unix:${join(dir, VNC_SOCKET)}${mode === 'password' ? ',password=on' : ''}`;
}

/** Letters and digits, 8 of them: all VNC auth carries. */
export function vncPassword(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return [...randomBytes(8)].map((b) => alphabet[b % alphabet.length]).join('');
}

type Execute = (command: string, args?: Record<string, unknown>) => Promise<unknown>;

function dialUnix(path: string, identity: string): Promise<Duplex> {
  return new Promise((ok, fail) => {
    const s = connect(path);
    s.once('connect', () => { s.removeAllListeners('error'); ok(s); });
    s.once('error', (err) => fail(new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] cannot connect to the VNC server of ${identity} at ${path}: ${err.message}`, { source: SOURCE, cause: err })));
  });
}

/** openVnc() for one console handle: the password is chosen and set once, on first use. */
export function vncOpener(dir: string, identity: string, execute: Execute): () => Promise<{ socket: Duplex; password?: string }> {
  let password: Promise<string | undefined> | undefined;
  const setPassword = async (): Promise<string | undefined> => {
    const info = (await execute('query-vnc')) as { enabled?: boolean; auth?: string };
    if (!info.enabled) throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${identity} runs without a VNC server (started with vnc "off")`, { source: SOURCE });
    if (info.auth === 'none') return undefined;
    const pw = vncPassword();
    await execute('change-vnc-password', { password: pw });
    return pw;
  };
  return async () => {
    const path = join(dir, VNC_SOCKET);
    if (!existsSync(path)) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${identity} has no VNC socket (${path}): it was started by a provider version without -vnc, or with vnc "off"; recreate the machine`, { source: SOURCE });
    }
    password ??= setPassword();
    password.catch(() => { password = undefined; }); // a failed QMP call is retried by the next open
    const pw = await password;
    return { socket: await dialUnix(path, identity), password: pw };
  };
}
