/**
 * "Has the screen changed since the frame this viewer shows?" for the live view's frame loop
 * (GET /api/leases/{id}/screen?since=<tag>). Each lease session being watched keeps a copy of the
 * last raw frame it was asked for and a generation number, bumped when a capture differs from the
 * copy (memcmp, ~1 ms for 1280×800): a viewer whose tag names the current generation gets
 * 204 No Content — no encode, no bytes — and keeps its image. The copy lives as long as the
 * session object (WeakMap), so nothing outlives the lease.
 */
import type { RawScreen } from '@vmhub/core';

interface Last { frame: Buffer; width: number; height: number; format: string; generation: number }

const lastFrames = new WeakMap<object, Last>();

/** The generation of `screen` for the session `owner`, counting it as new when it differs from the last one seen. */
export function frameGeneration(owner: object, screen: RawScreen): number {
  const last = lastFrames.get(owner);
  if (last && last.width === screen.width && last.height === screen.height && last.format === screen.format && last.frame.equals(screen.data)) return last.generation;
  const generation = (last?.generation ?? 0) + 1;
  // A copy: adapters reuse their capture buffers between calls.
  const frame = last && last.frame.length === screen.data.length ? last.frame : Buffer.allocUnsafe(screen.data.length);
  screen.data.copy(frame);
  lastFrames.set(owner, { frame, width: screen.width, height: screen.height, format: screen.format, generation });
  return generation;
}

/** The tag a viewer sends back: the generation and what it asked for (another size or format is another image). */
export function frameTag(generation: number, format: string, maxWidth: number): string {
  return `${generation}.${format}.${maxWidth}`;
}
