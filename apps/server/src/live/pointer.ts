/**
 * Where the pointer is, as the live view draws it: state of the lease's session, in this process only, the
 * last point the person or the agent moved the pointer to (a click, the end of a drag, a scroll)
 * and the agent's last click. Screen pixels. The machine's own pointer position, when its adapter
 * can tell it (the `mouse_location` verb), is asked for by the API and preferred over these.
 */
import type { RecordedCall } from '@vmhub/core/router';
import type { LeaseSession, LeaseStateKey } from '../sessions/lease-session.ts';

export interface PointerMark {
  x: number;
  y: number;
  at: string;
  actor: 'agent' | 'human';
}

export class LeasePointer {
  #last: PointerMark | undefined;
  #agentClick: PointerMark | undefined;

  /** The last point the person or the agent moved to. */
  get last(): PointerMark | undefined {
    return this.#last;
  }

  /** The agent's last successful click. */
  get agentClick(): PointerMark | undefined {
    return this.#agentClick;
  }

  moved(actor: 'agent' | 'human', point: { x: number; y: number }, at = new Date().toISOString()): void {
    if (!Number.isFinite(point.x) || !Number.isFinite(point.y)) return;
    this.#last = { x: Math.round(point.x), y: Math.round(point.y), at, actor };
  }

  /** An agent call: a click (its result names the screen point), or a drag/scroll given in screen pixels. */
  agent(call: RecordedCall): void {
    if (call.outcome !== 'ok') return;
    const at = new Date(Date.parse(call.at) + call.duration_ms).toISOString();
    const out = call.result.structuredContent as { screen_x?: unknown; screen_y?: unknown } | undefined;
    if (call.tool === 'vm_click' && typeof out?.screen_x === 'number' && typeof out.screen_y === 'number') {
      this.moved('agent', { x: out.screen_x, y: out.screen_y }, at);
      this.#agentClick = this.#last;
      return;
    }
    // Image coordinates would need the mapping of the screenshot they came from: only screen ones count.
    const args = call.args as { coordinate_space?: unknown; x?: unknown; y?: unknown; to?: { x?: unknown; y?: unknown } };
    if (args.coordinate_space !== 'screen') return;
    const p = call.tool === 'vm_drag' ? args.to : call.tool === 'vm_scroll' ? args : undefined;
    if (p && typeof p.x === 'number' && typeof p.y === 'number') this.moved('agent', { x: p.x, y: p.y }, at);
  }
}

/** A lease session's pointer marks (LeaseSession.state: made on first use, gone with the session). */
const POINTER: LeaseStateKey<LeasePointer> = { name: 'live-pointer', make: () => new LeasePointer() };

/** The pointer state of a lease session. */
export function pointerOf(session: Pick<LeaseSession, 'state'>): LeasePointer {
  return session.state(POINTER);
}
