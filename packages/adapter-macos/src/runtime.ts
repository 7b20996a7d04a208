/**
 * What every capability function gets: the lease's options, its SSH link and VNC link (both
 * opened lazily, closed in dispose), and what the session learned (the screen size the in-guest
 * path measured). One per lease session (adapter.ts); the adapter kit queues its input actions and
 * aborts every call's signal when the session ends.
 */
import type { AdapterContext, ExecResult, LeaseContext } from '@vmhub/core';
import { run, type RunOptions } from './guest.ts';
import type { MacosOptions } from './options.ts';
import { SshLink } from './ssh-link.ts';
import { VncLink } from './vnc-link.ts';

const DISPOSE_WAIT_MS = 3000;

export interface Size { width: number; height: number }

export class MacosRuntime {
  readonly options: MacosOptions;
  readonly ssh: SshLink;
  readonly vnc: VncLink;
  /** The screen in pixels as the in-guest path last saw it (vnc: "none"). */
  screen?: Size;
  readonly #running = new Set<Promise<unknown>>();

  constructor(options: MacosOptions, lease: LeaseContext) {
    this.options = options;
    this.ssh = new SshLink(options, (port) => lease.connect(port), (name) => lease.secret?.(name) ?? Promise.resolve(undefined));
    this.vnc = new VncLink(options, { connect: (port) => lease.connect(port), console: () => lease.console(), secret: (name) => lease.secret?.(name) ?? Promise.resolve(undefined) });
  }

  /** Screen and input over VNC (else over the in-guest tools). */
  get viaVnc(): boolean {
    return this.options.vnc !== 'none';
  }

  /** One of the adapter's own guest commands over SSH (in-guest tools, tar). */
  run(ctx: AdapterContext, argv: string[], o?: RunOptions): Promise<ExecResult> {
    return this.track(run(this.ssh, this.options, ctx, argv, o));
  }

  /** A guest command the session waits for (bounded) at dispose, after aborting it. */
  track<T>(p: Promise<T>): Promise<T> {
    this.#running.add(p);
    const done = () => { this.#running.delete(p); };
    p.then(done, done);
    return p;
  }

  /**
   * End of the session, after the kit aborted every call's signal — which kills commands still
   * running in the guest over the still-open SSH connection (ssh-exec.ts): they are waited for at
   * most DISPOSE_WAIT_MS, then the RFB client and the SSH connection are closed.
   */
  async close(): Promise<void> {
    if (this.#running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.#running]), new Promise((r) => { timer = setTimeout(r, DISPOSE_WAIT_MS); })]);
      clearTimeout(timer);
    }
    await Promise.all([this.vnc.close(), this.ssh.close()]);
  }
}
