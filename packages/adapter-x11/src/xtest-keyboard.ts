/**
 * Keys and text through the session's resident XTEST connection (xtest.ts): vm_key and vm_type
 * with no process anywhere, as clicks already are. Each keysym is pressed on the keycode the
 * server's map gives it (with Shift for a level-2 symbol, as xdotool does); a symbol the map lacks
 * (é, ✓, Привет, a key name the keyboard has no key for) is bound to a spare keycode first.
 *
 * Spare keycodes follow the rule x11-type.ts measured for xdotool: a client looks a key event up
 * in the map as it is when it reads the event, not as it was when the key was pressed, so a
 * keycode is bound BEFORE its characters are typed and stays bound after — until a later
 * character needs it (then only after REBIND_SETTLE_MS, when it was pressed in the same call) or
 * the session ends (unbindAll). Free keycodes are used first, then the session's own, oldest first.
 *
 * Guarantees kept from the xdotool path: keys are typed in order, `delay_ms` apart; a cancelled call
 * (ctx.signal) stops before the next key; every key pressed here is released whatever happens;
 * the call returns once the X server has applied every event (one GetInputFocus round trip).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { cancelled } from './errors.ts';
import { charKeysym, keysymOf } from './keys.ts';
import type { XTestConnection } from './xtest.ts';

const SHIFT_L = keysymOf('Shift_L');
const SHIFT_R = keysymOf('Shift_R');
/** Wait before re-binding a keycode pressed earlier in the same call (clients may still be reading). */
export const REBIND_SETTLE_MS = 300;
/** Gap between the chords of one vm_key (xdotool key --delay 8 did the same). */
const CHORD_GAP_MS = 8;

/** Keysym → the spare keycode the session bound it to, in binding order (oldest first). */
export type XTestBindings = Map<number, number>;

interface Stroke { keysym: number; keycode: number; shift: boolean }

/**
 * Plan the keystrokes of `keysyms` from `start`: the longest run whose missing symbols fit the
 * spare keycodes at hand, and the bindings to make for it (keysym → keycode).
 */
async function planSegment(x: XTestConnection, keysyms: number[], start: number, bound: XTestBindings): Promise<{ strokes: Stroke[]; binds: [number, number][] }> {
  const { min, per, syms } = await x.keyboardMap();
  const ours = new Set(bound.values());
  const free: number[] = [];
  for (let k = 0; k * per < syms.length; k++) {
    if (syms.subarray(k * per, k * per + per).every((s) => s === 0) && !ours.has(min + k)) free.push(min + k);
  }
  const pool = [...free, ...bound.values()];
  const claimed = new Map<number, number>(); // keysym → keycode, bound for this segment
  const taken = new Set<number>();
  const strokes: Stroke[] = [];
  for (let i = start; i < keysyms.length; i++) {
    const keysym = keysyms[i]!;
    const fresh = claimed.get(keysym);
    if (fresh !== undefined) { strokes.push({ keysym, keycode: fresh, shift: false }); continue; }
    const place = await x.placeOf(keysym);
    // A symbol on one of our keycodes keeps it for this segment; once a new binding has taken
    // that keycode (it is rebound before the segment is typed), the symbol needs another one.
    if (place && !(ours.has(place.keycode) && taken.has(place.keycode))) {
      if (ours.has(place.keycode)) taken.add(place.keycode);
      strokes.push({ keysym, ...place });
      continue;
    }
    const keycode = pool.find((c) => !taken.has(c));
    if (keycode === undefined) break;
    taken.add(keycode);
    claimed.set(keysym, keycode);
    strokes.push({ keysym, keycode, shift: false });
  }
  return { strokes, binds: [...claimed] };
}

/** Make the segment's bindings, forgetting whatever the keycodes carried for us before. */
async function bind(x: XTestConnection, binds: [number, number][], bound: XTestBindings): Promise<void> {
  for (const [keysym, keycode] of binds) {
    for (const [other, code] of bound) if (code === keycode) bound.delete(other);
    bound.delete(keysym);
    await x.bindKeycode(keycode, keysym);
    bound.set(keysym, keycode);
  }
}

/** Keys this call holds down, released in reverse order by `releaseAll` whatever happened. */
class Held {
  readonly #codes: number[] = [];
  readonly x: XTestConnection;
  constructor(x: XTestConnection) { this.x = x; }
  press(code: number): void { this.x.key(true, code); this.#codes.push(code); }
  release(code: number): void {
    const i = this.#codes.lastIndexOf(code);
    if (i >= 0) this.#codes.splice(i, 1);
    this.x.key(false, code);
  }
  releaseAll(): void {
    if (this.x.closed) return;
    for (const code of this.#codes.splice(0).reverse()) this.x.key(false, code);
  }
}

async function pause(ms: number, signal: AbortSignal, what: string, done: () => string): Promise<void> {
  if (signal.aborted) throw cancelled(what, 'stopped', done());
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw cancelled(what, 'stopped', done());
  }
}

/**
 * Type `text` (newlines already "\n"). False, before anything is typed, when the first
 * character cannot be placed (no spare keycode, or no Shift key for a level-2 symbol): the caller
 * then types through xdotool, which remaps on its own.
 */
export async function typeThroughXTest(x: XTestConnection, text: string, delayMs: number, bound: XTestBindings, signal: AbortSignal): Promise<boolean> {
  const keysyms = [...text].map(charKeysym);
  const shift = await x.keycodeOf(SHIFT_L);
  const held = new Held(x);
  const pressed = new Set<number>();
  let typed = 0;
  const done = () => `${typed} of ${keysyms.length} characters typed`;
  try {
    while (typed < keysyms.length) {
      const { strokes, binds } = await planSegment(x, keysyms, typed, bound);
      if (strokes.length === 0 || (shift === undefined && strokes.some((s) => s.shift))) {
        if (typed === 0) return false;
        throw cancelled('vm_type', 'stopped', `${done()}: no spare keycode is left for the rest (the keyboard map changed while typing)`);
      }
      if (binds.some(([, code]) => pressed.has(code))) {
        await x.sync();
        await pause(REBIND_SETTLE_MS, signal, 'vm_type', done);
      }
      await bind(x, binds, bound);
      for (const stroke of strokes) {
        if (typed > 0) await pause(delayMs, signal, 'vm_type', done);
        else if (signal.aborted) throw cancelled('vm_type', 'not started');
        if (stroke.shift) held.press(shift!);
        held.press(stroke.keycode);
        held.release(stroke.keycode);
        if (stroke.shift) held.release(shift!);
        pressed.add(stroke.keycode);
        typed++;
      }
    }
  } finally {
    held.releaseAll();
  }
  await x.sync();
  return true;
}

/**
 * Press each chord (keysyms in order, then released in reverse), CHORD_GAP_MS apart. A level-2
 * key gets Shift unless the chord holds it already. False, before anything is pressed, when a key
 * cannot be placed: the caller then uses xdotool.
 */
export async function keysThroughXTest(x: XTestConnection, chords: number[][], bound: XTestBindings, signal: AbortSignal): Promise<boolean> {
  const all = chords.flat();
  const { strokes, binds } = await planSegment(x, all, 0, bound);
  const shift = await x.keycodeOf(SHIFT_L);
  if (strokes.length < all.length || (shift === undefined && strokes.some((s) => s.shift))) return false;
  await bind(x, binds, bound);
  const held = new Held(x);
  let next = 0;
  let sent = 0;
  try {
    for (const chord of chords) {
      if (sent > 0) await pause(CHORD_GAP_MS, signal, 'vm_key', () => `${sent} of ${chords.length} chords pressed`);
      else if (signal.aborted) throw cancelled('vm_key', 'not started');
      const mine = strokes.slice(next, next + chord.length);
      next += chord.length;
      const shiftInChord = mine.some((s) => s.keysym === SHIFT_L || s.keysym === SHIFT_R);
      const order: number[] = [];
      for (const s of mine) {
        if (s.shift && !shiftInChord && !order.includes(shift!)) { held.press(shift!); order.push(shift!); }
        held.press(s.keycode);
        order.push(s.keycode);
      }
      for (const code of order.reverse()) held.release(code);
      sent++;
    }
  } finally {
    held.releaseAll();
  }
  await x.sync();
  return true;
}

/**
 * End of the session: unbind the keycodes it bound that still carry its keysym (someone may have
 * re-bound one since), so a later session on the same desktop finds them free.
 */
export async function unbindAll(x: XTestConnection, bound: XTestBindings): Promise<void> {
  if (bound.size === 0) return;
  const { min, per, syms } = await x.keyboardMap();
  for (const [keysym, keycode] of bound) {
    if (syms[(keycode - min) * per] === keysym) await x.bindKeycode(keycode, 0);
  }
  bound.clear();
  await x.sync();
}
