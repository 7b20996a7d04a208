import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACTIVE_ID_SH, parseWindowList, resolveWindow, windowProps, xpropStrings } from './x11-list-windows.ts';

const SAMPLE = `@active 0x400022
@window 0x400022
xwininfo: Window id: 0x400022 "vm \\"sh\\""
  Absolute upper-left X:  12
  Absolute upper-left Y:  50
  Width: 484
  Height: 316
  Map State: IsViewable
WM_CLASS = "xterm", "XTerm"
_NET_WM_NAME = "vm \\"sh\\" ✓"
WM_NAME = "vm"
_NET_WM_PID = 4242
_NET_WM_STATE:  not found.
@window 0x600001
  Absolute upper-left X:  0
  Absolute upper-left Y:  0
  Width: 10
  Height: 10
  Map State: IsUnMapped
WM_CLASS = "other", "Other"
WM_NAME = "hidden\\040one"
_NET_WM_STATE = _NET_WM_STATE_HIDDEN
@window 0x700001
`;

/** $active_id as ACTIVE_ID_SH reads it, with `xprop` printing `root` for the root's property. */
function activeId(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-xprop-'));
  try {
    writeFileSync(join(dir, 'xprop'), `#!/bin/sh\nprintf '%s\\n' '${root}'\n`);
    chmodSync(join(dir, 'xprop'), 0o755);
    return execFileSync('/bin/sh', ['-c', `${ACTIVE_ID_SH}\nprintf %s "$active_id"`], { env: { PATH: `${dir}:/usr/bin:/bin` } }).toString();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('x11: the active window', () => {
  it('ACTIVE_ID_SH reads the first id of _NET_ACTIVE_WINDOW (xfwm4 sets two: the window, then 0x0); nothing when unset', () => {
    assert.equal(activeId('_NET_ACTIVE_WINDOW: window id # 0x1600014, 0x0'), '0x1600014');
    assert.equal(activeId('_NET_ACTIVE_WINDOW: window id # 0x400022'), '0x400022');
    assert.equal(activeId('_NET_ACTIVE_WINDOW:  not found.'), '');
  });

  it('windowProps: the UTF-8 title before WM_NAME, the pid, the class', () => {
    assert.deepEqual(windowProps('_NET_WM_PID = 77\n_NET_WM_NAME = "Rows \\342\\200\\224 Mozilla Firefox"\nWM_NAME = "Rows - Mozilla Firefox"\n'), { title: 'Rows — Mozilla Firefox', klass: [], pid: 77 });
    assert.deepEqual(windowProps('WM_NAME = "plain"\nWM_CLASS = "xterm", "XTerm"\n'), { title: 'plain', klass: ['xterm', 'XTerm'] });
    assert.deepEqual(windowProps(''), { title: '', klass: [] });
  });
});

describe('x11: list_windows (parsing)', () => {
  it('parses geometry, class, UTF-8 title, pid, focus and visibility; skips vanished windows', () => {
    const ws = parseWindowList(SAMPLE);
    assert.deepEqual(ws, [
      { id: '0x00400022', title: 'vm "sh" ✓', class: 'XTerm', x: 12, y: 50, width: 484, height: 316, focused: true, visible: true, pid: 4242 },
      { id: '0x00600001', title: 'hidden one', class: 'Other', x: 0, y: 0, width: 10, height: 10, focused: false, visible: false },
    ]);
  });

  it('unescapes xprop strings (quotes, backslashes, octal bytes as UTF-8)', () => {
    assert.deepEqual(xpropStrings('"a\\"b", "c\\\\d", "\\303\\251"'), ['a"b', 'c\\d', 'é']);
  });

  it('resolves by id (any hex form), by exact title; ambiguous and missing are typed errors', () => {
    const ws = parseWindowList(SAMPLE);
    assert.equal(resolveWindow(ws, '0x400022').id, '0x00400022');
    assert.equal(resolveWindow(ws, String(0x600001)).id, '0x00600001');
    assert.equal(resolveWindow(ws, 'hidden one').id, '0x00600001');
    assert.throws(() => resolveWindow([...ws, { ...ws[1]!, id: '0x00800001' }], 'hidden one'), /ambiguous.*0x00600001, 0x00800001/);
    assert.throws(() => resolveWindow(ws, 'nope'), (e: { code?: string }) => e.code === 'NOT_FOUND');
  });
});
