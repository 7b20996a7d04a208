/**
 * Type: through the session's XTEST connection when the provider shares the X socket
 * (xtest-keyboard.ts: no process, the same spare-keycode rule as below); otherwise
 * `xdotool type --delay D -- TEXT`, the text one argv element (never a shell word), in a
 * UTF-8 locale (xdotool stops at the first non-ASCII character under LC_ALL=C); xdotool types "\n"
 * as Return and "\t" as Tab.
 *
 * Characters missing from the keymap (é, ✓, Привет, 粘贴) are the hard part. Left to itself,
 * xdotool binds a scratch keycode, presses it and unbinds it right after; a client that reads the
 * key event after the unbind sees no symbol and DROPS the character. Measured on a loaded 2-core
 * host: 5–10 characters lost in 120, at 12 ms and at 40 ms delays alike. So the adapter binds
 * every such character to a free keycode BEFORE typing (keymap.ts: a Perl X11 client, since
 * the golden has perl-base but no xmodmap) and leaves it bound until a later call needs the
 * keycode again, or the session ends (dispose unbinds what is still ours): no race, 0 lost in the
 * same test. When that is impossible (no perl, a server demanding a cookie) it falls back to
 * xdotool's own remapping at remap_delay_ms.
 *
 * Long text goes out as one guest command per type_chunk_chars characters, in order. A cancelled
 * call (ctx.signal) kills the running piece in the guest (the channel's exec gets the signal) and
 * starts no further one — even over a channel that could not kill the piece, at most one chunk
 * more is typed.
 */
import type { AdapterContext } from '@vmhub/core';
import type { Guest } from './guest.ts';
import { charKeysym } from './keys.ts';
import { KEYMAP_PL } from './keymap.ts';
import type { X11Runtime } from './runtime.ts';
import { typeThroughXTest } from './xtest-keyboard.ts';

/** Characters the default (US) keymap has: typed without remapping. */
const IN_KEYMAP = /^[\x20-\x7e\n\t]$/u;
/** Wait before re-binding a keycode used earlier in the same call (clients may still be reading). */
const REBIND_SETTLE = '0.3';

// A guest command runs a list of ops in order: map "N:HEX ..." | type DELAY TEXT | sleep SECONDS.
// $1 is the keymap program; map's bindings are digits, ":" and hex made here, split on purpose.
const TYPE_SCRIPT = String.raw`
pl=$1; shift
while [ "$#" -gt 0 ]; do
  case "$1" in
    map) perl -e "$pl" bind $2 >/dev/null || exit 75; shift 2 ;;
    type) xdotool type --delay "$2" -- "$3" || exit $?; shift 3 ;;
    sleep) sleep "$2"; shift 2 ;;
    *) echo "bad op $1" >&2; exit 64 ;;
  esac
done
`;

export interface Keymap {
  /** Keycodes with no symbol bound. */
  free: number[];
  /** The keysyms of every keycode as dumped, to tell whether our binding is still there. */
  lines: Map<number, string>;
}

export function parseKeymap(text: string): Keymap {
  const free: number[] = [];
  const lines = new Map<number, string>();
  for (const line of text.split('\n')) {
    const m = /^keycode\s+(\d+)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const code = Number(m[1]);
    lines.set(code, m[2]!.trim());
    if (m[2]!.trim() === '') free.push(code);
  }
  return { free, lines };
}

/** Per session: which character we left bound on which keycode (keyed by the character), and its keymap line then. */
export interface Bindings { byChar: Map<string, { code: number; line: string }> }

/**
 * Plan ops for `text`: bind its non-keymap characters to keycodes (reusing our live bindings),
 * in segments that fit the keycodes available, and type each segment.
 */
export function planTyping(text: string, keymap: Keymap, bindings: Bindings, delayMs: number): string[] {
  for (const [ch, b] of bindings.byChar) if (keymap.lines.get(b.code) !== b.line) bindings.byChar.delete(ch);
  // Free keycodes first, then ours (oldest binding first) — Map order is insertion order.
  const pool = [...new Set([...keymap.free, ...[...bindings.byChar.values()].map((b) => b.code)])];
  const ops: string[] = [];
  const chars = [...text];
  let i = 0;
  for (let segment = 0; i < chars.length; segment++) {
    const used = new Set<number>();
    const binds: string[] = [];
    let j = i;
    for (; j < chars.length; j++) {
      const ch = chars[j]!;
      if (IN_KEYMAP.test(ch)) continue;
      const live = bindings.byChar.get(ch);
      if (live) { used.add(live.code); continue; }
      const code = pool.find((c) => !used.has(c));
      if (code === undefined) break;
      for (const [other, b] of bindings.byChar) if (b.code === code) bindings.byChar.delete(other);
      bindings.byChar.set(ch, { code, line: '' });
      used.add(code);
      binds.push(`${code}:${charKeysym(ch).toString(16)}`);
    }
    if (j === i) return []; // not one keycode to spare: the caller falls back to xdotool's remapping
    if (binds.length) {
      if (segment > 0) ops.push('sleep', REBIND_SETTLE);
      ops.push('map', binds.join(' '));
    }
    ops.push('type', String(delayMs), chars.slice(i, j).join(''));
    i = j;
  }
  return ops;
}

export async function type(rt: X11Runtime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const text = input.text.replace(/\r\n?/g, '\n');
  const xtest = await rt.xtest.connection(rt, ctx);
  if (xtest && await typeThroughXTest(xtest, text, rt.options.type_delay_ms, rt.xtest.bound, ctx.signal)) return;
  const guest = await rt.guest(ctx);
  const { type_delay_ms: fast, remap_delay_ms: slow, type_chunk_chars: chunk } = rt.options;
  const needsKeymap = [...text].some((ch) => !IN_KEYMAP.test(ch));
  let ops: string[] = [];
  if (needsKeymap) ops = await planWithKeymap(rt, guest, text, fast);
  if (ops.length === 0) {
    for (const run of typeRuns(text, chunk)) ops.push('type', String(run.slow ? slow : fast), run.text);
  }
  for (const batch of batchOps(ops, chunk)) {
    await guest.sh(TYPE_SCRIPT, [KEYMAP_PL, ...batch.ops], { needs: ['xdotool'], label: 'vm_type', timeoutMs: Math.max(batch.typingMs * 2 + 10_000, rt.options.command_timeout_ms) });
  }
  if (needsKeymap) await recordBindings(rt, guest);
}

async function planWithKeymap(rt: X11Runtime, guest: Guest, text: string, delay: number): Promise<string[]> {
  const keymap = await dumpKeymap(guest);
  if (!keymap) return [];
  return planTyping(text, keymap, rt.bindings, delay);
}

/** The guest's keymap, or undefined when perl is missing or the server refuses the connection. */
async function dumpKeymap(guest: Guest): Promise<Keymap | undefined> {
  const res = await guest.run(['sh', '-c', 'command -v perl >/dev/null 2>&1 || exit 3; exec perl -e "$1" dump 2>/dev/null || exit 4', 'vmhub-x11', KEYMAP_PL], { okCodes: [0, 3, 4] });
  return res.exit_code === 0 ? parseKeymap(res.stdout.toString('utf8')) : undefined;
}

/** Remember the keymap lines of our keycodes now (to notice someone re-mapping them later). */
async function recordBindings(rt: X11Runtime, guest: Guest): Promise<void> {
  const { bindings } = rt;
  if (bindings.byChar.size === 0) return;
  const keymap = await dumpKeymap(guest).catch(() => undefined);
  if (!keymap) return;
  for (const b of bindings.byChar.values()) b.line = keymap.lines.get(b.code) ?? '';
}

/**
 * End of the session: give back the keycodes it bound, so a later session on the same desktop
 * (the lease outlived a server restart) finds them free again. One guest command, only when
 * something was bound; the Perl client unbinds a keycode only while it still carries our keysym.
 * A cleanup: no call signal, bounded by its own timeout, errors swallowed (the machine may be gone).
 */
export async function unbindTyped(rt: X11Runtime, ctx: AdapterContext, timeoutMs: number): Promise<void> {
  const pairs = [...rt.bindings.byChar].map(([ch, b]) => `${b.code}:${charKeysym(ch).toString(16)}`);
  if (pairs.length === 0) return;
  try {
    const guest = await rt.guest(ctx);
    await guest.run(['perl', '-e', KEYMAP_PL, 'unbind', ...pairs], { cleanup: true, timeoutMs, label: 'keymap unbind' });
  } catch {
    // Best effort: a keycode left bound only shrinks the spare pool of a desktop that is going away.
  }
}

export interface OpBatch {
  /** Ops for one run of TYPE_SCRIPT. */
  ops: string[];
  /** Typed characters × (their delay + 10 ms): what the batch's timeout is based on. */
  typingMs: number;
}

/**
 * Cut the ops into guest commands of at most `size` typed characters each (a long type op is
 * split, so every xdotool call stays short too), order kept: between two commands a cancelled
 * call stops.
 */
export function batchOps(ops: string[], size: number): OpBatch[] {
  const batches: OpBatch[] = [];
  let cur: OpBatch = { ops: [], typingMs: 0 };
  let chars = 0;
  const room = () => {
    if (chars < size) return;
    batches.push(cur);
    cur = { ops: [], typingMs: 0 };
    chars = 0;
  };
  for (let i = 0; i < ops.length;) {
    const op = ops[i]!;
    if (op !== 'type') {
      room();
      cur.ops.push(op, ops[i + 1]!);
      i += 2;
      continue;
    }
    const delay = ops[i + 1]!;
    let points = [...ops[i + 2]!];
    while (points.length > 0) {
      room();
      const piece = points.slice(0, size - chars);
      points = points.slice(piece.length);
      cur.ops.push('type', delay, piece.join(''));
      cur.typingMs += piece.length * (Number(delay) + 10);
      chars += piece.length;
    }
    i += 3;
  }
  if (cur.ops.length > 0) batches.push(cur);
  return batches;
}

export interface TypeRun { text: string; slow: boolean }

/** Runs of keymap characters and of characters xdotool must remap, each at most `size` long. */
export function typeRuns(text: string, size: number): TypeRun[] {
  const runs: TypeRun[] = [];
  for (const ch of text) {
    const slow = !IN_KEYMAP.test(ch);
    const last = runs[runs.length - 1];
    if (last && last.slow === slow && [...last.text].length < size) last.text += ch;
    else runs.push({ text: ch, slow });
  }
  return runs;
}
