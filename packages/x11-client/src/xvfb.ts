/**
 * For tests (`@vmhub/x11-client/xvfb`): an Xvfb on a free display of this host, that accepts
 * clients without a cookie (`-ac`) or demands MIT-MAGIC-COOKIE-1 (`cookie: true`, a random one
 * nobody is given). `-noreset`, as vmhub's goldens run it: atoms outlive the last client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Xvfb {
  display: number;
  /** The server's socket: /tmp/.X11-unix/X<display>. */
  socket: string;
  proc: ChildProcess;
  stop(): void;
}

/** A display number with no socket and no lock, from a random start (tests run side by side). */
export function freeDisplay(from = 300): number {
  for (let n = from + Math.floor(Math.random() * 200); ; n++) {
    if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  }
}

/** Start Xvfb (640×480×24) and resolve once its socket exists. `dir` holds the cookie file. */
export async function startXvfb(options: { dir: string; cookie?: boolean; display?: number }): Promise<Xvfb> {
  const display = options.display ?? freeDisplay();
  const socket = `/tmp/.X11-unix/X${display}`;
  const args = [`:${display}`, '-nolisten', 'tcp', '-noreset', '-screen', '0', '640x480x24'];
  if (options.cookie) {
    // One Xauthority entry: FamilyWild, no address, the display number, MIT-MAGIC-COOKIE-1, 16 bytes.
    const field = (b: Buffer) => Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
    const auth = join(options.dir, `auth-${display}`);
    writeFileSync(auth, Buffer.concat([Buffer.from([0xff, 0xff]), field(Buffer.alloc(0)), field(Buffer.from(String(display))), field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(randomBytes(16))]));
    args.push('-auth', auth);
  } else {
    args.push('-ac');
  }
  const proc = spawn('Xvfb', args, { stdio: 'ignore' });
  for (let i = 0; !existsSync(socket); i++) {
    if (i > 200 || proc.exitCode !== null) { proc.kill('SIGKILL'); throw new Error(`Xvfb :${display} did not start`); }
    await sleep(50);
  }
  return { display, socket, proc, stop: () => { proc.kill('SIGKILL'); } };
}
