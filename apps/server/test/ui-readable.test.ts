// The lease page's words and overlay geometry (ui/browser/readable.ts, the module the page is
// bundled from, imported here): lease events as sentences, a recording step's result as one line,
// and a screen pixel's place on the displayed image.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UI_FILES } from '../src/ui/index.ts';
import { boxPoint, eventText, resultText } from '../src/ui/browser/readable.ts';

type Ev = { kind: string; detail?: unknown };
const fns = { eventText, resultText, boxPoint };

describe('server: dashboard readable lines', () => {
  it('lease events read as sentences, not JSON', () => {
    const cases: [Ev, RegExp][] = [
      [{ kind: 'lease.created', detail: { template: 'debian-x11', owner: 'ci', principal: 'p', request_id: 'r' } }, /^Lease created from template debian-x11 for ci\.$/],
      [{ kind: 'lease.ready', detail: {} }, /^The machine is ready\.$/],
      [{ kind: 'lease.renewed', detail: { expires_at: '2026-12-06T10:00:00.000Z', capped: true } }, /^Renewed until .+ \(capped at its maximum lifetime\)\.$/],
      [{ kind: 'lease.releasing', detail: {} }, /^Release requested/],
      [{ kind: 'lease.released', detail: { from: 'releasing', machine: 'destroyed' } }, /^Released — its machine was destroyed\.$/],
      [{ kind: 'lease.expired', detail: { from: 'ready', reason: 'ttl' } }, /^Expired because its time ran out\.$/],
      [{ kind: 'lease.failed', detail: { code: 'BOOT_TIMEOUT', message: 'not ready after 120 s' } }, /^Failed: BOOT_TIMEOUT — not ready after 120 s$/],
      [{ kind: 'lease.failed', detail: { from: 'starting', reason: 'deadline' } }, /^Failed because it did not become ready in time\.$/],
      [{ kind: 'machine.lost', detail: { state: 'exited' } }, /^The machine was removed or stopped outside vmhub \(exited\): the lease failed\.$/],
      [{ kind: 'exec.detached', detail: { job: 'j1', pid: 1 } }, /^A detached command started \(job j1\)\.$/],
      [{ kind: 'something.new', detail: { a: 1 } }, /^Something new: \{"a":1\}$/],
    ];
    for (const [ev, want] of cases) assert.match(fns.eventText(ev), want, ev.kind);
    for (const [ev] of cases.slice(0, -1)) assert.doesNotMatch(fns.eventText(ev), /[{}"]/, `${ev.kind}: no JSON`);
  });

  it('a step\'s result: exit code and output, an error\'s code and message, else its fields', () => {
    assert.equal(fns.resultText({ outcome: 'ok', result: { exit_code: 0, stdout: 'hello\n', stderr: '' } }), 'exit 0 · stdout: hello');
    assert.equal(fns.resultText({ outcome: 'ok', result: { exit_code: 2, stdout: '', stderr: 'no such file\n', timed_out: true } }), 'exit 2 · timed out · stderr: no such file');
    assert.equal(fns.resultText({ outcome: 'error', code: 'HUMAN_CONTROL', result: { code: 'HUMAN_CONTROL', message: 'A person has taken over.' } }), 'HUMAN_CONTROL: A person has taken over.');
    assert.equal(fns.resultText({ outcome: 'ok', result: { screen_x: 10, screen_y: 20 } }), 'screen_x: 10 · screen_y: 20');
    assert.equal(fns.resultText({ outcome: 'ok' }), '', 'no result, no line');
  });

  it('places a screen pixel on the displayed image (any scale, any offset), or nowhere off the screen', () => {
    const frame = { screenWidth: 1280, screenHeight: 800 };
    assert.deepEqual(fns.boxPoint(0, 0, frame, { left: 10, top: 5, width: 640, height: 400 }), { left: 10.25, top: 5.25 });
    assert.deepEqual(fns.boxPoint(639.5, 399.5, frame, { left: 0, top: 0, width: 640, height: 400 }), { left: 320, top: 200 });
    assert.deepEqual(fns.boxPoint(100, 50, frame, { left: 0, top: 0, width: 1280, height: 800 }), { left: 100.5, top: 50.5 }, '1:1');
    assert.equal(fns.boxPoint(1280, 10, frame, { left: 0, top: 0, width: 640, height: 400 }), null);
    assert.equal(fns.boxPoint(5, 5, null, { left: 0, top: 0, width: 640, height: 400 }), null, 'no frame yet');
  });

  it('the lease page ships this module', () => {
    for (const name of ['eventText', 'resultText', 'boxPoint']) assert.match(UI_FILES['/ui/lease.js']!.body, new RegExp(`function ${name}\\(`), name);
  });
});
