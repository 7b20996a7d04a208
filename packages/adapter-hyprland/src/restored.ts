/**
 * AdapterSession.restored for Hyprland/sway: the lease's machine went back to a snapshot (or this
 * lease is a fork started from one). The session forgets what it learned of the old machine —
 * the Wayland environment (desktop.ts: the compositor's socket and instance may be new), the
 * layout and the probe — so the next call discovers them again. The kept keyboard counts as not
 * started: the next vm_type/vm_key starts the helper (or reaches the one the snapshot kept, by
 * its socket) before reclaimKeyboard relies on it. The capture helper's connection is dropped
 * (capture.ts): the next screenshot starts the helper again, or reaches the one that still runs. `holderStarted` stays as it is, so dispose
 * still stops a pointer holder or keyboard helper a memory snapshot brought back. Touches
 * nothing in the guest; cannot fail.
 */
import type { HyprRuntime } from './runtime.ts';

export function restored(rt: HyprRuntime): void {
  rt.facts.clear();
  rt.keyboardStarted = false;
  rt.capture.client?.close();
  rt.capture.frames?.release();
  rt.capture = {};
}
