import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseWindowList, resolveWindow, xpropStrings } from './x11-list-windows.ts';

const SAMPLE = `@active _NET_ACTIVE_WINDOW: window id # 0x400022
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
