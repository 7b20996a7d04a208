/**
 * A GuestChannel that runs argv on THIS host (child_process.spawn, never a shell): lets an
 * adapter be tested against a real Xvfb or headless sway without any provider. It keeps the channel rules: argv
 * only, timeouts, output caps, NOT_FOUND for a missing file, INVALID_REQUEST over a size cap, and
 * `signal`: an abort kills the command's whole process tree as a timeout does and resolves at
 * once with exit_code null, timed_out true; an already-aborted signal starts nothing.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile, chmod } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ExecOptions, ExecResult, GuestChannel } from '@vmhub/core';
import { VmhubError } from '@vmhub/core';

export interface HostChannelOptions {
  /** Plays the desktop user's home. */
  home: string;
  /** Extra env for every exec (e.g. PATH). */
  env?: Record<string, string>;
  /** Omit putArchive to exercise the adapter's tar fallback. */
  withArchive?: boolean;
  /** Run every exec as this uid (and gid), as the guest's desktop user runs the compositor. */
  uid?: number;
}

export interface HostChannel extends GuestChannel {
  /** argv of every exec, for tests that count guest commands. */
  readonly calls: string[][];
}

export function createHostChannel(options: HostChannelOptions): HostChannel {
  const calls: string[][] = [];
  const channel: HostChannel = {
    home: options.home,
    calls,
    exec: (argv, o = {}) => {
      calls.push(argv);
      return run(argv, o, options);
    },
    async putFile(path, data, o = {}) {
      if (options.uid !== undefined) {
        // As the desktop user, like provider channels write files: directories it makes are its own.
        const res = await run(['sh', '-c', 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1" && { [ -z "$2" ] || chmod "$2" "$1"; }', 'put', path, o.mode === undefined ? '' : o.mode.toString(8)], { stdin: data }, options);
        if (res.exit_code !== 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [host-channel] cannot write ${path}: ${res.stderr.toString().trim()}`);
        return;
      }
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data);
      if (o.mode !== undefined) await chmod(path, o.mode);
    },
    async getFile(path, o = {}) {
      let size: number;
      try {
        const st = await stat(path);
        if (!st.isFile()) throw new VmhubError('INVALID_REQUEST', `[vmhub] [host-channel] ${path} is not a regular file`);
        size = st.size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new VmhubError('NOT_FOUND', `[vmhub] [host-channel] no such file: ${path}`);
        throw err;
      }
      if (o.maxBytes !== undefined && size > o.maxBytes) throw new VmhubError('INVALID_REQUEST', `[vmhub] [host-channel] ${path} is ${size} bytes, over the ${o.maxBytes}-byte cap`);
      return readFile(path);
    },
    async close() {},
  };
  if (options.withArchive) {
    channel.putArchive = async (dir, tar) => {
      await mkdir(dir, { recursive: true });
      const chunks: Buffer[] = [];
      for await (const c of tar) chunks.push(Buffer.from(c as Uint8Array));
      const res = await run(['tar', '-x', '-C', dir, '-f', '-'], { stdin: Buffer.concat(chunks) }, options);
      if (res.exit_code !== 0) throw new Error(`tar failed: ${res.stderr.toString()}`);
    };
  }
  return channel;
}

/** How long a killed command may take to close its output before exec resolves anyway. */
const KILL_GRACE_MS = 1000;

function run(argv: string[], o: ExecOptions, options: HostChannelOptions): Promise<ExecResult> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const cap = o.maxOutputBytes ?? 1024 * 1024;
  const signal = o.signal;
  if (signal?.aborted) return Promise.resolve({ exit_code: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: true, truncated: false });
  return new Promise((resolve) => {
    // Own process group, so a timeout kills the whole tree (sh and what it started).
    const full = options.uid === undefined ? argv : ['setpriv', `--reuid=${options.uid}`, `--regid=${options.uid}`, '--clear-groups', ...argv];
    const child = spawn(full[0]!, full.slice(1), {
      cwd: o.cwd ?? options.home,
      env: { ...process.env, ...options.env, ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [], err: Buffer[] = [];
    let outLen = 0, errLen = 0, truncated = false, timedOut = false, settled = false;
    const collect = (bufs: Buffer[], len: number, chunk: Buffer): number => {
      const room = cap - len;
      if (room <= 0) { truncated = true; return len; }
      if (chunk.length > room) { truncated = true; bufs.push(chunk.subarray(0, room)); return cap; }
      bufs.push(chunk);
      return len + chunk.length;
    };
    child.stdout.on('data', (c: Buffer) => { outLen = collect(out, outLen, c); });
    child.stderr.on('data', (c: Buffer) => { errLen = collect(err, errLen, c); });
    let grace: NodeJS.Timeout | undefined;
    const kill = () => {
      if (settled || timedOut) return;
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
      // A process that left the group (setsid) may still hold stdout: do not wait for it.
      grace = setTimeout(() => finish(null), KILL_GRACE_MS);
    };
    const timer = setTimeout(kill, timeoutMs);
    signal?.addEventListener('abort', kill, { once: true });
    const finish = (code: number | null, stderrExtra?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      signal?.removeEventListener('abort', kill);
      if (stderrExtra) err.push(Buffer.from(stderrExtra));
      resolve({ exit_code: timedOut ? null : code, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timed_out: timedOut, truncated });
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      // Same shape as docker exec for a missing binary.
      finish(e.code === 'ENOENT' ? 127 : 126, `exec: "${argv[0]}": executable file not found in $PATH`);
    });
    child.on('close', (code) => finish(code));
    child.stdin.on('error', () => { /* process exited before reading stdin */ });
    if (o.stdin !== undefined) child.stdin.end(o.stdin);
    else child.stdin.end();
  });
}
