/**
 * open(): one session per lease, made on the lease's first call and disposed exactly once when
 * the lease ends (release, expiry, failure, server shutdown). What the adapter learns about one
 * machine lives on this object (here: the screen size), never in module scope, so two leases
 * never see each other's state. Capability files get the session's `Guest`.
 */
import type { AdapterContext, AdapterSession, ExecOptions, ExecResult, LeaseContext } from '@vmhub/core';
import { exampleError } from './errors.ts';
import { exampleClick } from './example-click.ts';
import { exampleExec } from './example-exec.ts';
import { exampleGetFile } from './example-get-file.ts';
import { exampleKey } from './example-key.ts';
import { examplePutFile } from './example-put-file.ts';
import { exampleScreenshot, exampleScreenSize } from './example-screenshot.ts';
import { exampleType } from './example-type.ts';
import type { ExampleOptions } from './options.ts';

/** One lease's guest, as the capability files see it. */
export interface Guest {
  readonly options: ExampleOptions;
  /** Per-lease fact: the screen size last seen (each screenshot refreshes it: screens get resized). */
  screen?: { width: number; height: number };
  /** Run argv in the guest for this call; it is killed when the call is cancelled or the session ends. */
  run(ctx: AdapterContext, argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** run() for a desktop tool: its result when it exits 0, else a VmhubError saying what to fix. */
  x(ctx: AdapterContext, argv: string[], options?: ExecOptions): Promise<ExecResult>;
}

export function openExampleSession(options: ExampleOptions, lease: LeaseContext): AdapterSession {
  // Aborted by dispose(): every guest command this session started stops with it.
  const ended = new AbortController();
  const guest: Guest = {
    options,
    async run(ctx, argv, o = {}) {
      // Opened once per lease by core and closed by core when the lease ends: never close it here.
      const channel = await ctx.channel();
      // ctx.signal aborts when the agent cancels or the call's deadline passes: pass it to EVERY exec.
      return channel.exec(argv, { ...o, env: { DISPLAY: options.display, ...o.env }, signal: AbortSignal.any([ctx.signal, ended.signal]) });
    },
    async x(ctx, argv, o) {
      const r = await guest.run(ctx, argv, { timeoutMs: 10_000, ...o });
      if (r.exit_code === 0) return r;
      if (r.timed_out) throw exampleError('TIMEOUT', `${argv[0]} was cancelled or ran out of time`);
      if (r.exit_code === 127) throw exampleError('CAPABILITY_UNAVAILABLE', `${argv[0]} is not installed in template ${lease.template.id}: add it to the golden image`);
      throw exampleError('INTERNAL', `${argv[0]} exited ${r.exit_code} on display ${options.display}: ${r.stderr.toString('utf8').trim().slice(0, 300)}`);
    },
  };
  return {
    screenshot: (ctx) => exampleScreenshot(guest, ctx),
    screenSize: (ctx) => exampleScreenSize(guest, ctx),
    click: (ctx, input) => exampleClick(guest, ctx, input),
    type: (ctx, input) => exampleType(guest, ctx, input),
    key: (ctx, input) => exampleKey(guest, ctx, input),
    exec: (ctx, input) => exampleExec(guest, ctx, input),
    // What vm_exec {shell: "…"} runs: the argv of this machine's shell. Optional — leaving it out
    // gives exactly this (/bin/sh -c); a guest without /bin/sh says where its shell is (Windows:
    // PowerShell, Android: /system/bin/sh). Synchronous, no I/O.
    shellArgv: (command) => ['/bin/sh', '-c', command],
    putFile: (ctx, input) => examplePutFile(ctx, input),
    getFile: (ctx, input) => exampleGetFile(ctx, input),
    // Called once at lease end; core closes the channel afterwards. Must not throw.
    dispose: () => { ended.abort(); },
  };
}
