/**
 * exec for the fake guest: a small built-in command set interpreted in-process. No host process
 * is ever started, whatever argv says. Commands: echo [-n], cat [file...|stdin], true, false,
 * sleep N, ls [dir], pwd, env, mkdir [-p] dir, fail <code> <stderr text...>, exit N, and
 * sh -c '<script>' (see fake-shell.ts). Anything else: exit 127, "command not found".
 */
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import type { ExecResult } from '@vmhub/core';
import { hostPath } from './fake-sandbox.ts';
import { parseShell } from './fake-shell.ts';
import { GUEST_HOME } from './fake-store.ts';

export interface FakeExecOptions {
  root: string;
  cwd: string;
  stdin: Buffer;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Aborting it "kills" the command: like a timeout (exit_code null, timed_out true). */
  signal?: AbortSignal;
}

interface Out { stdout: Buffer[]; stderr: Buffer[] }
type Step = (args: string[], o: FakeExecOptions, out: Out, deadline: number) => Promise<number | 'timeout'>;

const say = (bufs: Buffer[], text: string | Buffer) => { bufs.push(typeof text === 'string' ? Buffer.from(text) : text); };

const COMMANDS: Record<string, Step> = {
  async echo(args, _o, out) {
    const newline = args[0] !== '-n';
    say(out.stdout, (newline ? args : args.slice(1)).join(' ') + (newline ? '\n' : ''));
    return 0;
  },
  async cat(args, o, out) {
    if (args.length === 0) { say(out.stdout, o.stdin); return 0; }
    let code = 0;
    for (const a of args) {
      try { say(out.stdout, await readFile(await hostPath(o.root, a, o.cwd))); }
      catch { say(out.stderr, `cat: ${a}: No such file or directory\n`); code = 1; }
    }
    return code;
  },
  async true() { return 0; },
  async false() { return 1; },
  async sleep(args, o, out, deadline) {
    const seconds = Number(args[0]);
    if (!Number.isFinite(seconds) || seconds < 0) { say(out.stderr, `sleep: invalid time interval '${args[0] ?? ''}'\n`); return 1; }
    const until = Date.now() + seconds * 1000;
    if (until > deadline) { await delay(Math.max(0, deadline - Date.now()), o.signal); return 'timeout'; }
    await delay(seconds * 1000, o.signal);
    return o.signal?.aborted ? 'timeout' : 0;
  },
  async ls(args, o, out) {
    const target = args.find((a) => !a.startsWith('-')) ?? o.cwd;
    try {
      const host = await hostPath(o.root, target, o.cwd);
      const s = await stat(host);
      say(out.stdout, s.isDirectory() ? (await readdir(host)).sort().map((n) => `${n}\n`).join('') : `${target}\n`);
      return 0;
    } catch {
      say(out.stderr, `ls: cannot access '${target}': No such file or directory\n`);
      return 2;
    }
  },
  async pwd(_a, o, out) { say(out.stdout, `${o.cwd}\n`); return 0; },
  async env(_a, o, out) { say(out.stdout, Object.entries(o.env).map(([k, v]) => `${k}=${v}\n`).join('')); return 0; },
  async mkdir(args, o, out) {
    for (const a of args.filter((x) => !x.startsWith('-'))) {
      try { await mkdir(await hostPath(o.root, a, o.cwd), { recursive: true }); }
      catch (err) { say(out.stderr, `mkdir: cannot create directory '${a}': ${(err as Error).message}\n`); return 1; }
    }
    return 0;
  },
  async fail(args, _o, out) {
    say(out.stderr, `${args.slice(1).join(' ')}\n`);
    const code = Number(args[0]);
    return Number.isInteger(code) && code >= 0 && code <= 255 ? code : 1;
  },
  async exit(args) { const code = Number(args[0] ?? 0); return Number.isInteger(code) ? code & 255 : 2; },
};

/** Sleep `ms`, ending early (without error) when `signal` aborts. */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

async function runOne(argv: string[], o: FakeExecOptions, out: Out, deadline: number): Promise<number | 'timeout'> {
  if (o.signal?.aborted) return 'timeout';
  const name = posix.basename(argv[0] ?? '');
  if (name === 'sh' || name === 'bash') {
    if (argv[1] !== '-c' || argv[2] === undefined) { say(out.stderr, 'fake sh: only "sh -c <script>" is supported\n'); return 2; }
    const steps = parseShell(argv[2]);
    if (typeof steps === 'string') { say(out.stderr, `fake sh: ${steps}\n`); return 2; }
    let code: number | 'timeout' = 0;
    for (const step of steps) {
      const stepOut: Out = { stdout: [], stderr: [] };
      code = await runOne(step.argv, o, stepOut, deadline);
      (step.toStderr ? out.stderr : out.stdout).push(...stepOut.stdout);
      out.stderr.push(...stepOut.stderr);
      if (code === 'timeout' || posix.basename(step.argv[0] ?? '') === 'exit') break;
    }
    return code;
  }
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) { say(out.stderr, `${argv[0]}: command not found\n`); return 127; }
  return cmd(argv.slice(1), o, out, deadline);
}

function cap(bufs: Buffer[], max: number): { data: Buffer; truncated: boolean } {
  const all = Buffer.concat(bufs);
  return all.length > max ? { data: all.subarray(0, max), truncated: true } : { data: all, truncated: false };
}

export async function fakeExec(argv: string[], o: FakeExecOptions): Promise<ExecResult> {
  const out: Out = { stdout: [], stderr: [] };
  let cwdOk = true;
  try {
    const s = await stat(await hostPath(o.root, o.cwd));
    cwdOk = s.isDirectory();
  } catch { cwdOk = false; }
  if (!cwdOk) return { exit_code: 1, stdout: Buffer.alloc(0), stderr: Buffer.from(`cd: ${o.cwd}: No such directory\n`), timed_out: false, truncated: false };
  const code = await runOne(argv, o, out, Date.now() + o.timeoutMs);
  const stdout = cap(out.stdout, o.maxOutputBytes);
  const stderr = cap(out.stderr, o.maxOutputBytes);
  return {
    exit_code: code === 'timeout' ? null : code,
    stdout: stdout.data, stderr: stderr.data,
    timed_out: code === 'timeout',
    truncated: stdout.truncated || stderr.truncated,
  };
}

export function fakeEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: GUEST_HOME, USER: 'user', PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', ...extra };
}
