/**
 * Readiness checks made from the host, over the X server's socket the provider shares
 * (docker-framebuffer.ts: the container's /tmp/.X11-unix is `<machine dir>/x11`), instead of a
 * `docker exec` per poll. Two of the X11 desktop's probes have an exact equivalent here:
 *
 *   xdpyinfo -display $DISPLAY  → the X server completes connection setup for a new client;
 *   wmctrl -m                   → the root window carries _NET_SUPPORTING_WM_CHECK, naming a
 *                                 window that carries it too (how an EWMH window manager says it
 *                                 runs; wmctrl -m fails without it).
 *
 * A probe's `check()` answers true, or a line saying what it saw, or `unusable` when the server
 * refuses this client (it wants a cookie: the golden's Xvfb runs with -ac, another may not) — the
 * caller then runs the probe in the guest as before. Between checks, `changed(ms)` waits at most
 * `ms` but returns at once when what the probe waits for may have happened: the socket directory
 * changed (the display's socket appeared), or a property of the root window changed (the window
 * manager announced itself; the probe keeps one connection that listens for PropertyNotify). So a
 * stage ends when its event happens, not at the next poll. The wire is @vmhub/x11-client's (core
 * protocol, no authentication).
 */
import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { ATOM_WINDOW, XConnection, XRefused, getProperty32, internAtom, PROPERTY_CHANGE_MASK, selectEvents } from '@vmhub/x11-client';

export type CheckResult = true | string | { unusable: string };

export interface HostProbe {
  check(): Promise<CheckResult>;
  /** Resolves after `ms`, or sooner when what the probe waits for may have changed. */
  changed(ms: number): Promise<void>;
  close(): void;
}

const WM_CHECK = '_NET_SUPPORTING_WM_CHECK';
/** Bound on connecting, setup and each request. */
const TIMEOUT_MS = 2000;

/** The host equivalent of a probe's argv (after $DISPLAY was filled in), when there is one. */
export function hostProbeFor(argv: string[], socketPath: string): HostProbe | undefined {
  if (argv[0] === 'xdpyinfo' && (argv.length === 1 || (argv.length === 3 && argv[1] === '-display'))) return new DisplayProbe(socketPath);
  if (argv.length === 2 && argv[0] === 'wmctrl' && argv[1] === '-m') return new WindowManagerProbe(socketPath);
  return undefined;
}

/** The display number of ":0" / ":0.0" / "unix:1"; undefined for a display that is not local. */
export function displayNumber(display: string): number | undefined {
  const m = /^(?:unix)?:(\d+)(?:\.\d+)?$/.exec(display);
  return m ? Number(m[1]) : undefined;
}

/** Connect, or say why not: `unusable` when the server refuses this client (it wants a cookie). */
function connect(socket: string, options: Parameters<typeof XConnection.open>[1]): Promise<XConnection | Exclude<CheckResult, true>> {
  return XConnection.open(socket, options).catch((err: Error) => (err instanceof XRefused ? { unusable: err.message } : err.message));
}

/** A wake-up for `changed()`: resolved by whichever event comes first, or the timer. */
class Wake {
  #resolve: (() => void) | undefined;
  /** An event came while nobody waited: the next wait returns at once. */
  #missed = false;
  fire(): void {
    if (this.#resolve) this.#resolve();
    else this.#missed = true;
  }
  wait(ms: number): Promise<void> {
    if (this.#missed) {
      this.#missed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#resolve = undefined; resolve(); }, ms);
      this.#resolve = () => { clearTimeout(timer); this.#resolve = undefined; resolve(); };
    });
  }
}

/** Setup answered = the display serves clients. Wakes when the socket directory changes. */
class DisplayProbe implements HostProbe {
  readonly #socket: string;
  readonly #wake = new Wake();
  #watcher: FSWatcher | undefined;

  constructor(socket: string) {
    this.#socket = socket;
    try {
      this.#watcher = watch(dirname(socket), () => this.#wake.fire());
      this.#watcher.on('error', () => this.#watcher?.close());
    } catch {
      // No watch (an odd filesystem): plain polling.
    }
  }

  async check(): Promise<CheckResult> {
    const x = await connect(this.#socket, { timeoutMs: TIMEOUT_MS });
    if (!(x instanceof XConnection)) return x;
    x.close();
    return true;
  }

  changed(ms: number): Promise<void> {
    return this.#wake.wait(ms);
  }

  close(): void {
    this.#watcher?.close();
  }
}

/**
 * The window manager runs: the root names a window carrying _NET_SUPPORTING_WM_CHECK. One
 * connection, kept between checks, listens for the root's PropertyNotify (selected before the
 * first look, so a change in between is not missed).
 */
class WindowManagerProbe implements HostProbe {
  readonly #socket: string;
  readonly #wake = new Wake();
  #x: XConnection | undefined;

  constructor(socket: string) {
    this.#socket = socket;
  }

  async check(): Promise<CheckResult> {
    if (!this.#x || this.#x.closed) {
      const x = await connect(this.#socket, { timeoutMs: TIMEOUT_MS, requestTimeoutMs: TIMEOUT_MS, onEvent: () => this.#wake.fire() });
      if (!(x instanceof XConnection)) return x;
      this.#x = x;
      selectEvents(x, x.setup.root, PROPERTY_CHANGE_MASK);
    }
    const x = this.#x;
    try {
      const atom = await internAtom(x, WM_CHECK);
      if (atom === 0) return `no ${WM_CHECK} atom yet: no EWMH window manager has started`;
      const [child] = await getProperty32(x, x.setup.root, atom, ATOM_WINDOW);
      if (child === undefined) return `the root window has no ${WM_CHECK}: the window manager has not started`;
      // A window manager that died leaves the property naming a window that is gone (BadWindow) or no longer carries it.
      const [self] = await getProperty32(x, child, atom, ATOM_WINDOW).catch(() => [] as number[]);
      if (self !== child) return `${WM_CHECK} names window 0x${child.toString(16)}, which does not carry it: the window manager is not running`;
      return true;
    } catch (err) {
      this.close();
      return (err as Error).message;
    }
  }

  changed(ms: number): Promise<void> {
    return this.#wake.wait(ms);
  }

  close(): void {
    this.#x?.close();
    this.#x = undefined;
  }
}
