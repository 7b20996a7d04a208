/** What every capability check gets: the adapter, its target, the router connection, and what earlier checks learned. */
import type { TestContext } from 'node:test';
import type { Adapter, AdapterPlugin, Capability, OpenSession, WindowInfo } from '@vmhub/core';
import type { RouterConnection } from '../connect-router.ts';
import type { AdapterTarget } from '../types.ts';

export interface ExecCommands {
  /** Prints "vmhub-conformance" and exits 0. Default ["echo", "vmhub-conformance"]. */
  echo?: string[];
  /** Prints "vmhub-conformance-err" on stderr and exits 3. Default ["sh", "-c", "echo vmhub-conformance-err >&2; exit 3"]. */
  fail?: string[];
  /** Runs for at least 5 s (the suite gives it a 1 s timeout). Default ["sleep", "5"]; null skips the timeout and cancellation checks. */
  sleep?: string[] | null;
  /** Prints the working directory. Default ["pwd"]; run with `cwd`. */
  pwd?: string[];
  /** An existing directory for the cwd check (pwd must print it). Default "/tmp". */
  cwd?: string;
  /** Prints the file named by its last argument. Default ["cat"]; used to verify files when get_file is not declared. */
  cat?: string[];
}

export interface SuiteEnv {
  plugin: AdapterPlugin<any>;
  adapter: Adapter;
  /** The session the router drives (conn.session). */
  session: OpenSession;
  target: AdapterTarget;
  conn: RouterConnection;
  /** Screen size, once known (from a screenshot or screenSize()). */
  screen?: { width: number; height: number };
  /** The window the launch check opened (used by focus and close). */
  launched?: WindowInfo;
  launchApp?: string;
  exec: Required<Omit<ExecCommands, 'sleep'>> & { sleep: string[] | null };
  dispatch: { verb: string; args: Record<string, unknown> }[];
  /** A per-run relative directory name under the guest home for files the suite writes. */
  scratch: string;
  declared(cap: Capability): boolean;
}

export interface CapabilityCheck {
  name: string;
  run(env: SuiteEnv, t: TestContext): Promise<void>;
}

export type CheckTable = Partial<Record<Capability, CapabilityCheck[]>>;

/** Centre of the screen, in screen pixels. */
export function centre(env: SuiteEnv): { x: number; y: number } {
  const s = env.screen ?? { width: 20, height: 20 };
  return { x: Math.floor(s.width / 2), y: Math.floor(s.height / 2) };
}
