/**
 * AdapterSession.restored for X11: the lease's machine went back to a snapshot (or this lease is
 * a fork started from one). Whatever the session kept of the old machine is dropped so the next
 * call connects and learns again:
 * - the resident XTEST connection (closed, nothing unbound: its X server is gone, or is the
 *   snapshot's, whose keymap never had this session's bindings) and its bound keycodes;
 * - the keycodes vm_type bound through the guest (same reason: forgotten, not unbound);
 * - the framebuffer mapping (a new container or machine shares a new file) and the read buffers
 *   with their last stable frame;
 * - every memoised fact: screen size, probe, framebuffer source;
 * - the keys vm_key {action: "down"} held (they were held on the old machine).
 * Nothing here touches the guest; it cannot fail.
 */
import type { AdapterContext } from '@vmhub/core';
import type { X11Runtime } from './runtime.ts';

export async function restored(rt: X11Runtime, _ctx: AdapterContext): Promise<void> {
  rt.held.clear(); // the keys were held on the old machine
  await rt.xtest.drop();
  rt.bindings.byChar.clear();
  rt.frameBuffers.release();
  rt.facts.clear();
}
