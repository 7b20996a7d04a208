/** The text and image parsers, on samples shaped as Windows-MCP prints them (0.5.8 and 0.8.2). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { toolFailure } from '../src/guest.ts';
import { windowsPath } from '../src/guest-paths.ts';
import { parseChords } from '../src/keys.ts';
import { decodePng, pngSize, resampleRgb } from '../src/png.ts';
import { execScript, markerPayload, parseExec, parseGet, parsePowerShellReply, putScript } from '../src/powershell.ts';
import { desktopSize, parseScreenText } from '../src/screen-text.ts';
import { ToolMap } from '../src/tool-map.ts';
import { parseTree } from '../src/tree-text.ts';
import { clipboardText } from '../src/windows-cursortouch-paste.ts';
import { parseWindows } from '../src/windows-text.ts';

const SNAPSHOT_08 = `
Cursor Position: (640, 400)
Screenshot Original Size: (2560,1440)
Screenshot Coordinate Scale: 1.333333 — image pixels are downscaled; multiply every image pixel coordinate by 1.333333 before passing to Click, Move, Scroll, or any loc= argument (e.g. image pixel (200, 150) → screen coordinate (267, 200))

Active Desktop:
Name
---------
Desktop 1

Focused Window:
Name                   Depth  Status      Width    Height    Handle
-------------------  -------  --------  -------  --------  --------
Untitled - Notepad         0  Normal        800       600    131234

Opened Windows:
Name             Depth  Status       Width    Height    Handle
-------------  -------  ---------  -------  --------  --------
File Explorer        0  Minimized      900       700    131300
Calculator           0  Normal         320       500    131400

UI Tree:
desktop
    ├── window "Untitled - Notepad"
    │   ├── menu bar "Application"
    │   │   └── (40,60) menu item "File"  [action: click]
    │   └── (640,400) edit "Text Editor"  [action: fill]  [focused]  [value:"hi"]
    └── window "Calculator"
        └── (100,200) button "Seven"  [action: click]
`;

const STATE_058 = `
Default Language of User:
English (United States)

Focused App:
Name                Depth  Status      Width    Height    Handle
----------------  -------  --------  -------  --------  --------
Untitled - Notepad      0  Normal        800       600    131234

Opened Apps:
No apps running in background

List of Interactive Elements:
  Label  App Name            ControlType    Name         Value    Shortcut    Coordinates    IsFocused
-------  ------------------  -------------  -----------  -------  ----------  -------------  -----------
      0  Untitled - Notepad  EditControl    Text Editor  hi                   (640,400)      True
      1  Untitled - Notepad  ButtonControl  Close                             (1180,16)      False
`;

describe('screen text', () => {
  it('reads the downscaled form: original size and coordinate scale', () => {
    const m = parseScreenText(SNAPSHOT_08);
    assert.deepEqual(m.size, { width: 2560, height: 1440 });
    assert.equal(m.scale, 1.333333);
    assert.deepEqual(m.cursor, { x: 640, y: 400 });
    assert.deepEqual(desktopSize(m, { width: 1920, height: 1080 }), { width: 2560, height: 1440 });
  });
  it('reads "Screenshot Size" and WxH spellings, and a transform with a negative origin', () => {
    assert.deepEqual(parseScreenText('Screenshot Size: (1280,800)\n').size, { width: 1280, height: 800 });
    assert.deepEqual(parseScreenText('Screenshot Size: 1280x800\n').size, { width: 1280, height: 800 });
    const t = parseScreenText('Screenshot Coordinate Transform: screen = (-1920 + image_x × 1.5, 0 + image_y × 1.5)');
    assert.deepEqual(t.origin, { x: -1920, y: 0 });
    assert.equal(t.scale, 1.5);
    assert.deepEqual(desktopSize({ scale: 2 }, { width: 100, height: 50 }), { width: 200, height: 100 });
    assert.deepEqual(desktopSize({}, { width: 100, height: 50 }), { width: 100, height: 50 });
  });
});

describe('windows text', () => {
  it('0.8: focused window first, then the others, with status and size', () => {
    const w = parseWindows(SNAPSHOT_08);
    assert.deepEqual(w.map((x) => [x.id, x.title, x.focused, x.visible, x.width, x.height]), [
      ['131234', 'Untitled - Notepad', true, true, 800, 600],
      ['131300', 'File Explorer', false, false, 900, 700],
      ['131400', 'Calculator', false, true, 320, 500],
    ]);
  });
  it('0.5.8: Focused App / Opened Apps, "No apps" yields none', () => {
    const w = parseWindows(STATE_058);
    assert.equal(w.length, 1);
    assert.equal(w[0]!.title, 'Untitled - Notepad');
    assert.equal(w[0]!.focused, true);
  });
  it('pipe rows', () => {
    const w = parseWindows('Opened Windows:\n# name|depth|status|width|height|handle\nA|0|Normal|10|20|7\n');
    assert.deepEqual(w.map((x) => [x.id, x.title, x.width]), [['7', 'A', 10]]);
  });
});

describe('UI tree', () => {
  it('0.8 outline: desktop → windows → elements, coordinates, names and states', () => {
    const tree = parseTree(SNAPSHOT_08, 10);
    assert.equal(tree.role, 'desktop');
    assert.deepEqual(tree.children!.map((c) => [c.role, c.name]), [['window', 'Untitled - Notepad'], ['window', 'Calculator']]);
    const edit = tree.children![0]!.children![1]!;
    assert.deepEqual({ role: edit.role, name: edit.name, x: edit.x, y: edit.y }, { role: 'edit', name: 'Text Editor', x: 640, y: 400 });
    assert.ok(edit.states!.includes('focused'));
    assert.equal(tree.children![0]!.children![0]!.children![0]!.name, 'File');
  });
  it('max_depth prunes', () => {
    const tree = parseTree(SNAPSHOT_08, 2);
    assert.equal(tree.children![0]!.children, undefined);
  });
  it('0.5.8 tables: elements grouped by app, labels and focus kept', () => {
    const tree = parseTree(STATE_058, 10);
    assert.equal(tree.children!.length, 1);
    const [w] = tree.children!;
    assert.equal(w!.name, 'Untitled - Notepad');
    assert.deepEqual(w!.children!.map((e) => [e.role, e.name, e.x, e.y]), [['EditControl', 'Text Editor', 640, 400], ['ButtonControl', 'Close', 1180, 16]]);
    assert.deepEqual(w!.children![0]!.states, ['label:0', 'focused', 'value:hi']);
  });
  it('no tree: the desktop node alone', () => {
    assert.deepEqual(parseTree('UI Tree:\nNo elements\n', 5), { role: 'desktop', name: 'Windows desktop', children: [] });
  });
});

describe('PowerShell replies', () => {
  it('reads both reply orders', () => {
    assert.deepEqual(parsePowerShellReply('Response: hi\nthere\nStatus Code: 0'), { response: 'hi\nthere', status: 0 });
    assert.deepEqual(parsePowerShellReply('Status Code: 1\nResponse: boom'), { response: 'boom', status: 1 });
  });
  it('finds the marker line among other output, or fails with what PowerShell said', () => {
    assert.equal(markerPayload('put', 'Response: WARNING: x\nvmhub-put 12\nStatus Code: 0'), '12');
    assert.throws(() => markerPayload('put', 'Response: Access to the path is denied.\nStatus Code: 1'), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /denied/.test(e.message));
  });
  it('decodes the exec result', () => {
    const line = `vmhub-exec {"exit":3,"timed_out":false,"truncated":false,"stdout":"${Buffer.from('out').toString('base64')}","stderr":"${Buffer.from('err').toString('base64')}"}`;
    const r = parseExec(`Response: ${line}\nStatus Code: 0`);
    assert.equal(r.exit_code, 3);
    assert.equal(r.stdout.toString(), 'out');
    assert.equal(r.stderr.toString(), 'err');
    assert.equal(parseExec('Response: vmhub-exec {"exit":null,"timed_out":true,"truncated":false,"stdout":"","stderr":""}\nStatus Code: 0').exit_code, null);
    assert.deepEqual(parseGet('Response: vmhub-get {"missing":true}\nStatus Code: 0'), { missing: true });
  });
  it('never splices agent text into a script: argv, cwd and data travel as base64', () => {
    const evil = `'; Remove-Item -Recurse C:\\ #’‘$(whoami)`;
    const script = execScript({ argv: ['cmd.exe', evil], cwd: evil, stdin: Buffer.from(evil), timeoutMs: 1000, maxOutputBytes: 10 });
    assert.ok(!script.includes('Remove-Item'), 'the raw argument is not in the script');
    assert.ok(script.includes(Buffer.from(evil).toString('base64')));
    assert.ok(!putScript(evil, Buffer.from('x'), 'create').includes('Remove-Item'));
  });
});

describe('keys, paths, clipboard text', () => {
  it('maps X keysym names and chords to Shortcut names', () => {
    assert.deepEqual(parseChords('ctrl+shift+t Return F5 super+Page_Up'), [['ctrl', 'shift', 't'], ['enter'], ['f5'], ['win', 'pageup']]);
    assert.deepEqual(parseChords('ctrl++'), [['ctrl', '+']]);
    assert.throws(() => parseChords('ctrl+NoSuchKeyVmhub'), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /NoSuchKeyVmhub/.test(e.message));
  });
  it('maps core paths to Windows paths', () => {
    assert.equal(windowsPath('/root/a/b.txt', 'C:\\Users\\vmhub'), 'C:\\Users\\vmhub\\a\\b.txt');
    assert.equal(windowsPath('/root', 'C:\\Users\\vmhub'), 'C:\\Users\\vmhub');
    assert.equal(windowsPath('/C:/Windows/x', 'C:\\Users\\vmhub'), 'C:\\Windows\\x');
    assert.equal(windowsPath('/d/data', 'C:\\Users\\vmhub'), 'D:\\data');
    assert.equal(windowsPath('/tmp/x', 'C:\\Users\\vmhub'), 'C:\\tmp\\x');
    assert.equal(windowsPath('/home/user/a.txt', 'C:\\Users\\vmhub', ['/root', '/home/user']), 'C:\\Users\\vmhub\\a.txt');
    assert.equal(windowsPath('/home/username/a.txt', 'C:\\Users\\vmhub', ['/root', '/home/user']), 'C:\\home\\username\\a.txt');
  });
  it('reads clipboard answers', () => {
    assert.equal(clipboardText('Clipboard Content: "a "b"\nc"'), 'a "b"\nc');
    assert.equal(clipboardText('Clipboard is empty.'), '');
    assert.equal(clipboardText('plain'), 'plain');
  });
});

describe('tool map and failures', () => {
  it('prefers current names, falls back to the -Tool names, and adapts to schemas', () => {
    const old = new ToolMap([{ name: 'State-Tool' }, { name: 'Click-Tool' }, { name: 'Move-Tool', inputSchema: { properties: { to_loc: {} } } }, { name: 'Drag-Tool' }]);
    assert.equal(old.tool('screenshot')?.name, 'State-Tool');
    assert.equal(old.tool('drag')?.name, 'Drag-Tool');
    assert.equal(old.tool('clipboard'), undefined);
    assert.match(old.missing('clipboard'), /Clipboard, Clipboard-Tool/);
    const cur = new ToolMap([{ name: 'Snapshot' }, { name: 'Screenshot' }, { name: 'Move', inputSchema: { properties: { loc: {}, drag: {} } } }]);
    assert.equal(cur.tool('screenshot')?.name, 'Screenshot');
    assert.equal(cur.tool('drag')?.name, 'Move');
  });
  it('maps Windows-MCP failures to vmhub codes', () => {
    const q = toolFailure('Screenshot', 'Error capturing screenshot: Screenshot is quarantined: isolated graphics workers are denied desktop capture on this Windows session. Please try again.', false);
    assert.equal(q?.code, 'INTERNAL');
    assert.equal(q?.retryable, true);
    assert.equal(q?.details?.windows_mcp_error, 'SCREENSHOT_QUARANTINE');
    assert.equal(toolFailure('Click', "Error calling tool 'Click': Desktop state is empty. Please call Snapshot first.", true)?.details?.windows_mcp_error, 'DESKTOP_STATE_EMPTY');
    assert.equal(toolFailure('Click', "Error calling tool 'Click': Either loc or label must be provided.", true)?.code, 'INVALID_REQUEST');
    assert.equal(toolFailure('App', "Error calling tool 'App': Executable does not exist: C:\\x.exe", true)?.code, 'NOT_FOUND');
    assert.equal(toolFailure('App', 'Launched Notepad.', false), undefined);
  });
});

describe('png', () => {
  function png(width: number, height: number, rgb: (x: number, y: number) => [number, number, number], filter = 0): Buffer {
    const rows: Buffer[] = [];
    for (let y = 0; y < height; y++) {
      const row = Buffer.alloc(1 + width * 3);
      row[0] = filter;
      for (let x = 0; x < width; x++) {
        const px = rgb(x, y);
        for (let c = 0; c < 3; c++) row[1 + x * 3 + c] = filter === 1 && x > 0 ? (px[c]! - rgb(x - 1, y)[c]!) & 0xff : px[c]!;
      }
      rows.push(row);
    }
    const chunk = (type: string, body: Buffer) => {
      const len = Buffer.alloc(4); len.writeUInt32BE(body.length);
      return Buffer.concat([len, Buffer.from(type, 'latin1'), body, Buffer.alloc(4)]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4); ihdr[8] = 8; ihdr[9] = 2;
    return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
  }
  const colour = (x: number, y: number): [number, number, number] => [x * 10, y * 20, 7];
  it('decodes 8-bit RGB (filters none and sub) and rescales to the desktop size', () => {
    for (const filter of [0, 1]) {
      const img = png(4, 2, colour, filter);
      assert.deepEqual(pngSize(img), { width: 4, height: 2 });
      const d = decodePng(img);
      assert.deepEqual([...d.pixels.subarray(3 * 5, 3 * 6)], [10, 20, 7]);
      const big = resampleRgb(d, 8, 4);
      assert.equal(big.length, 8 * 4 * 3);
      // desktop pixel (2,2) lies in image pixel (1,1)
      assert.deepEqual([...big.subarray((2 * 8 + 2) * 3, (2 * 8 + 2) * 3 + 3)], [10, 20, 7]);
    }
  });
});
