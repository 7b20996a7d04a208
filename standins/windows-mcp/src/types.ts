import type { Screen } from './desktop.ts';

/** Faults the stand-in injects; all optional and mutable while the server runs (`standin.faults`). */
export interface Faults {
  /** Every HTTP request answers 401 as a wrong key does. */
  unauthorized?: boolean;
  /** Replaces the Host allow-list computed from the bind address (names without port). */
  allowedHosts?: string[];
  /** Screenshot-producing calls fail as Windows-MCP's quarantine does: `true` always, a number for the next N. */
  quarantine?: boolean | number;
  /** Tool calls wait this long (ms) before answering — one figure, or per tool name. Cancellable. */
  slowMs?: number | Record<string, number>;
  /**
   * Click/Type/Scroll/Move/MultiSelect/MultiEdit fail "Desktop state is empty…" until a Snapshot ran, whatever their
   * args. Set over the debug API it also forgets the last Snapshot (as a restarted Windows-MCP would); in-process,
   * set `state.lastSnapshot = null` for that.
   */
  snapshotFirst?: boolean;
}

export type StandinVersion = '0.5.8' | '0.6.2' | '0.8.2';
export const VERSIONS: readonly StandinVersion[] = ['0.5.8', '0.6.2', '0.8.2'];
export const VERSION_ALIASES: Record<string, StandinVersion> = { '0.5': '0.5.8', '0.5.8': '0.5.8', '0.6': '0.6.2', '0.6.2': '0.6.2', '0.8': '0.8.2', '0.8.2': '0.8.2' };

export interface StandinOptions {
  /** Which Windows-MCP to imitate: '0.5.8' (alias '0.5', the -Tool names), '0.6.2' ('0.6', Shell) or '0.8.2' ('0.8'). Default '0.8.2'. */
  version?: string;
  /** Bearer key every request must carry (Windows-MCP's --auth-key). Unset: no auth. */
  authKey?: string;
  /** Bind address, as `windows-mcp serve --host` (default 127.0.0.1); it decides the Host check. */
  host?: string;
  /** 0 picks a free port (default). */
  port?: number;
  /** Skips the Host check, as --allow-insecure-remote does. */
  allowInsecureRemote?: boolean;
  faults?: Faults;
  /** Virtual-desktop size in pixels (default 2560×1440, so 0.8.2 screenshots are downscaled). */
  screen?: Screen;
  /** WINDOWS_MCP_SCREENSHOT_SCALE (0.1–1.0, default 1.0). */
  screenshotScale?: number;
  /** The user's home (default C:\Users\vmhub). */
  home?: string;
}
