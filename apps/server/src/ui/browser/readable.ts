/**
 * The lease page's words and overlay geometry, with no DOM: a lease event as a sentence, a
 * recording step's result as one line, and where a screen pixel sits on the displayed image.
 * test/ui-readable.test.ts imports this very module.
 *
 *   eventText({kind, detail})            → "The machine is ready."
 *   resultText(step)                     → "exit 0 · stdout: hello" | "NOT_FOUND: no window …" | ""
 *   boxPoint(x, y, frame, box)           → {left, top} in CSS px inside box, or null
 */
import type { FrameGeometry } from './input-map.ts';

type Detail = Record<string, unknown>;

const REASONS: Record<string, string> = {
  ttl: 'its time ran out', max_lifetime: 'it reached its maximum lifetime', deadline: 'it did not become ready in time',
  provisioner_died: 'the server starting it stopped',
};
const MACHINE: Record<string, string> = {
  destroyed: 'its machine was destroyed', already_gone: 'its machine was already gone',
  identity_mismatch: 'the machine found under its name was not its own and was left alone',
};

function str(v: unknown): string { return typeof v === 'string' || typeof v === 'number' ? String(v) : ''; }

/** The words a table gives for a value, or undefined (only the table's own names count). */
function lookup(table: Record<string, string>, v: unknown): string | undefined {
  return typeof v === 'string' && Object.hasOwn(table, v) ? table[v] : undefined;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '…' : text;
}

function whenText(iso: unknown): string {
  const d = new Date(iso as string);
  return isNaN(d.getTime()) ? str(iso) : d.toLocaleString();
}

// A lease.<state> transition's tail: why, and what happened to the machine.
function endedText(word: string, d: Detail): string {
  const parts = [word];
  const reason = lookup(REASONS, d.reason);
  if (reason) parts.push('because ' + reason);
  else if (str(d.reason)) parts.push('(' + str(d.reason) + ')');
  const machine = lookup(MACHINE, d.machine);
  if (machine) parts.push('— ' + machine);
  return parts.join(' ') + '.';
}

export function eventText(ev: { kind?: string; detail?: unknown } | null | undefined): string {
  const d: Detail = ev && ev.detail && typeof ev.detail === 'object' ? ev.detail as Detail : {};
  switch (ev && ev.kind) {
    case 'lease.created':
      return 'Lease created' + (str(d.template) ? ' from template ' + str(d.template) : '') + (str(d.owner) ? ' for ' + str(d.owner) : '') + '.';
    case 'lease.claimed': return 'Handed out ready from the warm pool' + (str(d.pool) ? ' ' + str(d.pool) : '') + (str(d.owner) ? ' to ' + str(d.owner) : '') + '.';
    case 'lease.ready': return 'The machine is ready.';
    case 'lease.renewed': return 'Renewed' + (str(d.expires_at) ? ' until ' + whenText(d.expires_at) : '') + (d.capped ? ' (capped at its maximum lifetime)' : '') + '.';
    case 'lease.releasing': return 'Release requested; the machine is being torn down.';
    case 'lease.released': return endedText('Released', d);
    case 'lease.expired': return endedText('Expired', d);
    case 'lease.reaped': return endedText('Reaped', d);
    case 'lease.failed':
      if (str(d.code) || str(d.message)) return 'Failed: ' + (str(d.code) ? str(d.code) + ' — ' : '') + clip(str(d.message) || 'no message', 300);
      return endedText('Failed', d);
    case 'machine.destroyed': return 'The machine was destroyed.';
    case 'machine.already_gone': return 'The machine was already gone when it was torn down.';
    case 'machine.identity_mismatch': return 'A machine under this lease\'s name was not its own: it was left alone.';
    case 'machine.lost': return 'The machine was removed or stopped outside vmhub' + (str(d.state) ? ' (' + str(d.state) + ')' : '') + ': the lease failed.';
    case 'orphan.found': return 'A machine of this lease was found with no live lease.';
    case 'orphan.destroyed': return 'That orphaned machine was destroyed.';
    case 'orphan.already_gone': return 'That orphaned machine was already gone.';
    case 'reaper.teardown_error': return 'Tearing the machine down failed; it is retried' + (str(d.message) || str(d.error) ? ': ' + clip(str(d.message) || str(d.error), 300) : '.');
    case 'exec.detached': return 'A detached command started' + (str(d.job) ? ' (job ' + str(d.job) + ')' : '') + '.';
  }
  // A kind this page does not know yet: its name as words, and its details.
  const words = String((ev && ev.kind) || 'event').replace(/[._]+/g, ' ');
  const rest = ev && ev.detail !== undefined && ev.detail !== null && ev.detail !== '' ? (typeof ev.detail === 'string' ? ev.detail : JSON.stringify(ev.detail)) : '';
  return words.charAt(0).toUpperCase() + words.slice(1) + (rest && rest !== '{}' ? ': ' + clip(rest, 300) : '.');
}

// A step's result as one line: an error's code and message; a command's exit, stdout and stderr;
// else the result's fields as name: value.
export function resultText(step: { outcome?: string; code?: string; result?: unknown } | null | undefined): string {
  const r = step && step.result as Detail | null | undefined;
  if (!r || typeof r !== 'object') return '';
  if (step.outcome === 'error') return (str(r.code) || str(step.code) || 'error') + (str(r.message) ? ': ' + str(r.message) : '');
  const parts: string[] = [];
  if ('exit_code' in r || 'stdout' in r || 'stderr' in r) {
    if ('exit_code' in r) parts.push(r.exit_code === null ? 'no exit code' : 'exit ' + r.exit_code);
    if (r.timed_out) parts.push('timed out');
    if (str(r.stdout)) parts.push('stdout: ' + str(r.stdout).replace(/\s+$/, ''));
    if (str(r.stderr)) parts.push('stderr: ' + str(r.stderr).replace(/\s+$/, ''));
    if (r.truncated) parts.push('(output truncated)');
    if (str(r.job)) parts.push('job ' + str(r.job) + (r.running ? ', running' : ''));
    return parts.join(' · ');
  }
  for (const k in r) {
    const v = r[k];
    parts.push(k + ': ' + (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)));
  }
  return clip(parts.join(' · '), 400);
}

// Where screen pixel (x, y) is drawn: box is the displayed image's box {left, top, width, height}
// inside its container (CSS px), frame the geometry of the frame on display.
export function boxPoint(
  x: number, y: number,
  frame: Pick<FrameGeometry, 'screenWidth' | 'screenHeight'> | null,
  box: { left: number; top: number; width: number; height: number } | null,
): { left: number; top: number } | null {
  if (!frame || !box || !(frame.screenWidth > 0) || !(frame.screenHeight > 0) || !(box.width > 0) || !(box.height > 0)) return null;
  if (!(x >= 0) || !(y >= 0) || x >= frame.screenWidth || y >= frame.screenHeight) return null;
  return {
    left: box.left + (x + 0.5) * box.width / frame.screenWidth,
    top: box.top + (y + 0.5) * box.height / frame.screenHeight,
  };
}
