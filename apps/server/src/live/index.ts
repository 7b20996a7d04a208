/**
 * The live view's server side, wired once per hub: the recordings (their folder beside the
 * SQLite store, or in the default state directory for a PostgreSQL store, unless recordings.dir
 * says otherwise; swept at start and hourly), the frame captures they take after input actions,
 * whose leases each principal's live view shows, and the router hooks of take-over and hand-back
 * notes (read from the store, so every server process on it agrees).
 */
import { join } from 'node:path';
import type { VmhubConfig } from '@vmhub/core/config';
import type { HostAudit, HostHuman } from '@vmhub/core/router';
import type { Runtime } from '../runtime.ts';
import { localPrincipal, principalOf } from '../http/principal.ts';
import { stateDir } from '../store-target.ts';
import type { Live } from './api.ts';
import { heldControl } from './control.ts';
import { pointerOf } from './pointer.ts';
import { Recordings } from './recorder.ts';
import { leaseFrame } from './screen.ts';
import { pokeStream } from './stream-state.ts';

/** Recorded frames: PNG, at most this wide. */
const FRAME_WIDTH = 1280;
const CAPTURE_MS = 20_000;
/** A stream capture this recent is the recording's frame (the stream captures every 33 ms, every 5 ms after an action). */
const STREAM_FRESH_MS = 40;

export type { Live } from './api.ts';

/** `input`: the person's take-over input, a router's personInput (the agent's tools, one path for input). */
export function createLive(config: VmhubConfig, rt: () => Promise<Runtime>, input: Live['input']): Live {
  const settings = config.recordings ?? { enabled: true, keep_hours: 72 };
  const recordings = new Recordings({
    enabled: settings.enabled,
    keepHours: settings.keep_hours,
    root: async () => recordingsRoot(config, (await rt()).store),
    capture: async (leaseId) => captureFrame(await rt(), leaseId),
    session: async (leaseId) => (await rt()).sessions.get(leaseId),
    // One numbering per lease for every server process of the store (HTTP servers behind one balancer).
    number: async (leaseId, n, floor) => (await rt()).store.takeRecordingSteps(leaseId, n, floor),
  });
  return { runtime: rt, recordings, viewers: dashboardViewers(config), input };
}

/** The folder of the recordings: recordings.dir, else `recordings/` in the store's state directory. */
export async function recordingsRoot(config: VmhubConfig, store: Runtime['store']): Promise<string> {
  return config.recordings?.dir ?? join(await stateDir(store), 'recordings');
}

/**
 * Whose leases a principal's live view shows: its own, and — for the principal named by
 * http.local_leases_dashboard (default "default") — also the local OS user's, the principal of
 * the leases stdio clients (Claude Desktop/Code, Cursor) make on this store. Only the live view:
 * MCP tools keep every principal to its own leases.
 */
export function dashboardViewers(config: VmhubConfig): (principal: string) => readonly string[] {
  const mapped = config.http.local_leases_dashboard;
  return (principal) => (mapped !== false && principal === mapped && principal !== localPrincipal() ? [principal, localPrincipal()] : [principal]);
}

/** The router hooks: the take-over gate and the hand-back note, and the recorder with the pointer marks. */
export function liveHooks(live: Live): { human: HostHuman; record: NonNullable<HostAudit['record']> } {
  return {
    human: {
      // Read from the store on every call: a take-over made through another server process counts at once.
      control: async (leaseId) => heldControl((await live.runtime()).store, leaseId),
      takeNote: async (leaseId) => (await live.runtime()).store.takeNote(leaseId),
    },
    record: (call, extra) => {
      live.recordings.agent(call, principalOf(extra));
      // Where the agent's pointer went (its last click): the lease page draws it; and the lease's
      // live stream, if anyone watches, captures the effect now.
      void live.runtime().then((rt) => { const s = rt.sessions.get(call.lease_id); if (s) { pointerOf(s).agent(call); pokeStream(s); } }, () => undefined);
    },
  };
}

/**
 * The lease's screen now as a PNG, or undefined when the lease has no session or no screen (the
 * recorder opens none: a call of its principal bound it). While someone watches the lease, the
 * stream's own latest capture (STREAM_FRESH_MS old at most) is the frame (screen.ts, leaseFrame).
 */
async function captureFrame(r: Runtime, leaseId: string): Promise<Buffer | undefined> {
  if (!r.sessions.get(leaseId)) return undefined;
  return (await leaseFrame(r, leaseId, { format: 'png', maxWidth: FRAME_WIDTH, maxAgeMs: STREAM_FRESH_MS, timeoutMs: CAPTURE_MS }))?.data;
}
