/**
 * "Has the screen changed since the frame this viewer shows?" for the live view's frame loop
 * (GET /api/leases/{id}/screen?since=<tag>). Each lease session being watched keeps a copy of the
 * last raw frame it was asked for and a generation number, bumped when a capture differs from the
 * copy (memcmp, ~1 ms for 1280×800): a viewer whose tag names the current generation gets
 * 204 No Content — no encode, no bytes — and keeps its image. The copy is state of the lease's
 * session (LeaseSession.state), so it ends with the lease.
 */
import type { RawScreen } from '@vmhub/core';
import type { LeaseSession, LeaseStateKey } from '../sessions/lease-session.ts';

interface Last { frame: Buffer; width: number; height: number; format: string; generation: number }

/** The last frame a viewer of the lease was shown (undefined until one is). */
const LAST_FRAME: LeaseStateKey<{ last?: Last }> = { name: 'live-frame', make: () => ({}) };

/** The generation of `screen` for the lease's session, counting it as new when it differs from the last one seen. */
export function frameGeneration(session: Pick<LeaseSession, 'state'>, screen: RawScreen): number {
  const kept = session.state(LAST_FRAME);
  const last = kept.last;
  if (last && last.width === screen.width && last.height === screen.height && last.format === screen.format && last.frame.equals(screen.data)) return last.generation;
  const generation = (last?.generation ?? 0) + 1;
  // A copy: adapters reuse their capture buffers between calls.
  const frame = last && last.frame.length === screen.data.length ? last.frame : Buffer.allocUnsafe(screen.data.length);
  screen.data.copy(frame);
  kept.last = { frame, width: screen.width, height: screen.height, format: screen.format, generation };
  return generation;
}

/** The tag a viewer sends back: the generation and what it asked for (another size or format is another image). */
export function frameTag(generation: number, format: string, maxWidth: number): string {
  return `${generation}.${format}.${maxWidth}`;
}
