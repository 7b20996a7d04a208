/**
 * A lease's live stream (stream.ts) is state of its session (LeaseSession.state): made for the
 * first viewer, ended with the session (release, expiry, a restore onto a new machine, shutdown),
 * which tells every viewer why before their sockets close.
 */
import type { RawScreen } from '@vmhub/core';
import type { RegionPixels } from '@vmhub/core/screenshot';
import type { LeaseSession, LeaseStateKey } from '../sessions/lease-session.ts';
import { LeaseStream, type StreamStats } from './stream.ts';

const STREAM: LeaseStateKey<{ stream?: LeaseStream }> = {
  name: 'live-stream',
  make: () => ({}),
  end: (kept) => kept.stream?.close('the lease\'s session ended (released, expired, restored onto a new machine, or the server stopping)'),
  busy: (kept) => (kept.stream?.stats().viewers ?? 0) > 0,
};

/** The session's stream, made with `capture` on first use. */
export function streamOf(session: Pick<LeaseSession, 'state'>, capture: () => Promise<RawScreen | undefined>): LeaseStream {
  const kept = session.state(STREAM);
  return (kept.stream ??= new LeaseStream(capture));
}

/** The session's stream figures, when one was made. */
export function streamStats(session: Pick<LeaseSession, 'state' | 'disposed'> | undefined): StreamStats | undefined {
  return session && !session.disposed ? session.state(STREAM).stream?.stats() : undefined;
}

/** The frame the lease's stream captured at most `maxAgeMs` ago, while someone watches it. */
export function streamFrame(session: Pick<LeaseSession, 'state' | 'disposed'> | undefined, maxAgeMs: number): RegionPixels | undefined {
  return session && !session.disposed ? session.state(STREAM).stream?.latest(maxAgeMs) : undefined;
}

/** An action just finished on the lease: its stream (if any) captures now. */
export function pokeStream(session: Pick<LeaseSession, 'state' | 'disposed'> | undefined): void {
  if (session && !session.disposed) session.state(STREAM).stream?.poke();
}
