/**
 * One command over the lease's SSH connection, pty-less: argv (never a shell string built from
 * agent text — every word is single-quoted for the guest's login shell, which hands it to a fixed
 * /bin/sh wrapper), separate stdout/stderr with caps, the exit code, a timeout, and ctx.signal.
 *
 * Killing: the wrapper prints its pid as the first stderr line and then `exec`s the command, so
 * the pid is the command's. sshd makes every session its own process group (setsid), so on
 * timeout or abort a second exec kills that group with SIGKILL (and the channel is sent a KILL
 * signal request too); the call resolves `exit_code: null, timed_out: true` once it is done.
 */
import type { Readable } from 'node:stream';
import type { ExecResult } from '@vmhub/core';
import { macError } from './errors.ts';
import type { SshLink } from './ssh-link.ts';

export interface SshExecOptions {
  stdin?: Buffer | string | Readable;
  cwd?: string;
  env?: Record<string, string>;
  /** PATH for the command (the adapter's own tools); default: the login's. */
  path?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

// $1 cwd or "", $2 PATH or "", $3 number of NAME=VALUE words that follow, then argv.
const WRAPPER = [
  `printf '%s\\n' "$$" >&2`,
  'd=$1; p=$2; n=$3; shift 3',
  'while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done',
  '[ -z "$p" ] || { PATH=$p; export PATH; }',
  '[ -z "$d" ] || cd "$d" || exit 126',
  'exec "$@"',
].join('\n');

// The wrapper's pid leads the command's process group (sshd setsid()s each session): kill that
// group, and the group ps reports if a login shell forked the wrapper instead of exec'ing it.
const KILL = 'kill -KILL "-$1" 2>/dev/null; g=$(ps -o pgid= -p "$1" 2>/dev/null | tr -d " "); [ -n "$g" ] && [ "$g" -gt 1 ] && kill -KILL "-$g" 2>/dev/null; kill -KILL "$1" 2>/dev/null; exit 0';
const PID_WAIT_MS = 2000;
const KILL_WAIT_MS = 5000;

/** Single-quote one word for a POSIX shell (sh, bash, zsh all read it the same). */
export function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function remoteCommand(argv: string[], o: Pick<SshExecOptions, 'cwd' | 'env' | 'path'> = {}): string {
  const env = Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`);
  const words = ['/bin/sh', '-c', WRAPPER, 'vmhub-macos', o.cwd ?? '', o.path ?? '', String(env.length), ...env, ...argv];
  return words.map(quote).join(' ');
}

const killedResult = (stdout: Buffer = Buffer.alloc(0), stderr: Buffer = Buffer.alloc(0), truncated = false): ExecResult =>
  ({ exit_code: null, stdout, stderr, timed_out: true, truncated });

export async function sshExec(link: SshLink, argv: string[], o: SshExecOptions): Promise<ExecResult> {
  if (o.signal?.aborted) return killedResult();
  if (argv.some((a) => a.includes('\0'))) throw macError('INVALID_REQUEST', 'an argument contains a NUL byte, which no guest command can receive');
  const client = await link.client();
  if (o.signal?.aborted) return killedResult();
  const channel = await new Promise<import('ssh2').ClientChannel>((resolve, reject) => {
    client.exec(remoteCommand(argv, o), (err, ch) => (err ? reject(macError('INTERNAL', `the guest's sshd refused to run a command: ${err.message}`, { cause: err })) : resolve(ch)));
  });

  const out = new Capture(o.maxOutputBytes);
  const err = new Capture(o.maxOutputBytes);
  let pidText = '';
  let pid: number | undefined;
  let pidWaiters: (() => void)[] = [];
  channel.on('data', (d: Buffer) => out.add(d));
  channel.stderr.on('data', (d: Buffer) => {
    if (pid !== undefined) { err.add(d); return; }
    // The wrapper's pid line; whatever the login shell printed before it (a ~/.zshenv) is stderr.
    pidText += d.toString('latin1');
    for (let nl = pidText.indexOf('\n'); nl >= 0 && pid === undefined; nl = pidText.indexOf('\n')) {
      const line = pidText.slice(0, nl);
      pidText = pidText.slice(nl + 1);
      if (/^\d+$/.test(line)) pid = Number(line);
      else err.add(Buffer.from(`${line}\n`, 'latin1'));
    }
    if (pid === undefined) return;
    err.add(Buffer.from(pidText, 'latin1'));
    pidText = '';
    pidWaiters.forEach((w) => w());
    pidWaiters = [];
  });

  const finished = new Promise<{ code: number | null; signal?: string }>((resolve) => {
    let code: number | null = null;
    let sig: string | undefined;
    // ssh2 reports the exit status on 'exit' and again as 'close' arguments; either may come first.
    channel.once('exit', (c: number | null, s?: string) => { if (typeof c === 'number') code = c; sig ??= s; });
    channel.once('close', (c?: number | null, s?: string) => { if (code === null && typeof c === 'number') code = c; resolve({ code, signal: sig ?? s }); });
  });

  if (o.stdin === undefined) channel.end();
  else if (typeof o.stdin === 'string' || Buffer.isBuffer(o.stdin)) channel.end(o.stdin);
  else {
    o.stdin.on('error', () => channel.end());
    o.stdin.pipe(channel);
  }

  let why: 'timeout' | 'abort' | undefined;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  await new Promise<void>((resolve) => {
    timer = setTimeout(() => { why = 'timeout'; resolve(); }, o.timeoutMs);
    onAbort = () => { why = 'abort'; resolve(); };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    void finished.then(() => resolve());
  });
  // Whichever came first, neither the timer nor the listener outlives the call.
  clearTimeout(timer);
  if (onAbort) o.signal?.removeEventListener('abort', onAbort);
  if (!why) {
    const { code } = await finished;
    return { exit_code: code, stdout: out.buffer(), stderr: err.buffer(), timed_out: false, truncated: out.truncated || err.truncated };
  }

  // Timed out or cancelled: kill the command's process group, then drop the channel.
  if (pid === undefined) await new Promise<void>((resolve) => { pidWaiters.push(resolve); setTimeout(resolve, PID_WAIT_MS); });
  // The group first: a KILL signal request ends the wrapper's pid, and with it the way to its group.
  if (pid !== undefined && pid > 1) await killGroup(link, pid).catch(() => undefined);
  try { channel.signal('KILL'); } catch { /* the group kill did it */ }
  if (o.stdin && typeof o.stdin === 'object' && !Buffer.isBuffer(o.stdin)) (o.stdin as Readable).unpipe(channel);
  channel.close();
  await Promise.race([finished, new Promise((r) => setTimeout(r, 1000))]);
  return killedResult(out.buffer(), err.buffer(), out.truncated || err.truncated);
}

async function killGroup(link: SshLink, pid: number): Promise<void> {
  const client = await link.client();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, KILL_WAIT_MS);
    client.exec(remoteCommand(['/bin/sh', '-c', KILL, 'vmhub-kill', String(pid)]), (e, ch) => {
      if (e) { clearTimeout(timer); resolve(); return; }
      ch.on('data', () => undefined);
      ch.stderr.on('data', () => undefined);
      ch.once('close', () => { clearTimeout(timer); resolve(); });
      ch.end();
    });
  });
}

/** Bytes up to a cap; the rest is counted and dropped. */
class Capture {
  readonly #cap: number;
  readonly #parts: Buffer[] = [];
  #size = 0;
  truncated = false;
  constructor(cap: number) { this.#cap = cap; }
  add(d: Buffer): void {
    if (d.length === 0) return;
    const room = this.#cap - this.#size;
    if (room <= 0) { this.truncated = true; return; }
    const part = d.length > room ? d.subarray(0, room) : d;
    if (part.length < d.length) this.truncated = true;
    this.#parts.push(part);
    this.#size += part.length;
  }
  buffer(): Buffer { return Buffer.concat(this.#parts); }
}
