// Every 0.8.2 tool's effect on the simulated desktop, through the SDK client.
import { deepStrictEqual, equal, match, notDeepStrictEqual, ok } from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePng } from '../src/index.ts';
import { type Conn, open } from './client.ts';

let c: Conn;
before(async () => { c = await open({ version: '0.8.2' }); });
after(async () => { await c.close(); });

const notepad = () => c.s.state.windows.find((w) => w.title === 'Untitled - Notepad')!;
const editor = () => { const w = notepad(); return [w.x + 300, w.y + 200]; };
const image = (r: Awaited<ReturnType<Conn['call']>>) => { const i = r.content.find((x) => x.type === 'image'); return i?.type === 'image' ? Buffer.from(i.data, 'base64') : undefined; };

test('Screenshot: a PNG downscaled to 1920×1080 with the coordinate scale, and the window tables', async () => {
  const r = await c.call('Screenshot');
  const t = r.content[0].type === 'text' ? r.content[0].text : '';
  match(t, /^\n {4}Cursor Position: \(1280, 720\)\nScreenshot Original Size: \(2560,1440\)\nScreenshot Coordinate Scale: 1\.333333 — image pixels are downscaled; multiply every image pixel coordinate by 1\.333333 /);
  match(t, /UI Tree: Skipped for fast screenshot-only capture/);
  match(t, /\n {4}Focused Window:\n {4}Name {18}Depth {2}Status {6}Width {4}Height {4}Handle\n-+ {2}-+/);
  match(t, /Documents - File Explorer {8}0 {2}Normal {7}1000 {7}640/);
  equal(r.structuredContent, undefined); // no return annotation → no outputSchema, no structuredContent
  const png = decodePng(image(r)!);
  deepStrictEqual([png.width, png.height], [1920, 1080]);
});

test('Snapshot: the UI tree lists windows and elements; labels index them; a click visibly changes the screenshot', async () => {
  const before = image(await c.call('Snapshot', { use_vision: true }))!;
  const t = await c.text('Snapshot');
  match(t, /\nUI Tree:\ndesktop\n├── window "Untitled - Notepad"\n│   ├── \(\d+,\d+\) button "Minimize"  \[action: click\]/);
  match(t, /edit "Text Editor"  \[action: fill\]  \[focused\]/);
  equal(c.s.state.snapshots, 2);
  // label 5 = the editor? find it from the tree order: Minimize, Maximize, Close, File, Edit, View, Text Editor
  await c.call('Click', { label: 6 });
  ok(notepad().focused);
  await c.call('Click', { loc: [1300, 600] }); // the explorer window, below Notepad
  equal(c.s.state.focusedWindow?.title, 'Documents - File Explorer');
  const after = image(await c.call('Snapshot', { use_vision: true }))!;
  notDeepStrictEqual(decodePng(after).rgba, decodePng(before).rgba);
  await c.call('App', { mode: 'switch', name: 'notepad' });
});

test('Type into the text box, clear, caret start, press_enter; the result carries structuredContent', async () => {
  const [x, y] = editor();
  const r = await c.call('Type', { text: 'hello', loc: [x, y] });
  deepStrictEqual(r.structuredContent, { result: `Typed hello at (${x},${y}).` });
  await c.call('Type', { text: ' world', loc: [x, y], press_enter: true });
  equal(c.s.state.textBox, 'hello world\n');
  await c.call('Type', { text: '>', loc: [x, y], caret_position: 'start' });
  equal(c.s.state.textBox, '>hello world\n');
  await c.call('Type', { text: 'fresh', loc: JSON.stringify([x, y]), clear: 'true' }); // string loc and "true", as some clients send
  equal(c.s.state.textBox, 'fresh');
});

test('Shortcut ctrl+a / ctrl+v pastes the clipboard over the selection; Clipboard get/set', async () => {
  equal(await c.text('Clipboard', { mode: 'set', text: 'pasted ✓' }), 'Clipboard set to: pasted ✓');
  equal(await c.text('Clipboard', { mode: 'get' }), 'Clipboard content:\npasted ✓');
  await c.call('Click', { loc: editor() });
  equal(await c.text('Shortcut', { shortcut: 'ctrl+a' }), 'Pressed ctrl+a.');
  await c.call('Shortcut', { shortcut: 'ctrl+v' });
  equal(c.s.state.textBox, 'pasted ✓');
  await c.call('Shortcut', { shortcut: 'enter' });
  await c.call('Shortcut', { shortcut: 'x' });
  equal(c.s.state.textBox, 'pasted ✓\nx');
  deepStrictEqual(c.s.state.keys.slice(-4), ['ctrl+a', 'ctrl+v', 'enter', 'x']);
});

test('Scroll records and scrolls the window under the point; no loc answers "" as the real tool does', async () => {
  equal(await c.text('Scroll', { loc: editor(), direction: 'down', wheel_times: 3 }), `Scrolled vertical down by 3 wheel times at (${editor()[0]},${editor()[1]}).`);
  equal(notepad().scroll.vertical, 3);
  equal(await c.text('Scroll', { direction: 'up' }), '');
  equal(notepad().scroll.vertical, 2);
  equal(await c.text('Scroll', { type: 'horizontal', direction: 'down' }), 'Invalid direction. Use "left" or "right".');
});

test('Move and drag: a drag from the title bar moves the window', async () => {
  const w = notepad();
  const [x0, y0] = [w.x + 100, w.y + 10];
  equal(await c.text('Move', { loc: [x0, y0] }), `Moved the mouse pointer to (${x0},${y0}).`);
  equal(await c.text('Move', { loc: [x0 + 50, y0 + 40], drag: true }), `Dragged to (${x0 + 50},${y0 + 40}).`);
  deepStrictEqual([notepad().x, notepad().y], [w.x, w.y]); // same object, moved
  deepStrictEqual(c.s.state.drags.at(-1), { from: { x: x0, y: y0 }, to: { x: x0 + 50, y: y0 + 40 } });
  deepStrictEqual(c.s.state.pointer, { x: x0 + 50, y: y0 + 40 });
});

test('App launch / switch / resize; alt+f4 closes the focused window; Process kill closes by pid', async () => {
  equal(await c.text('App', { mode: 'launch', name: 'calculator' }), 'Calculator launched.');
  equal(c.s.state.focusedWindow?.title, 'Calculator');
  equal(await c.text('App', { mode: 'launch', name: 'nosuchapp' }), 'Nosuchapp not found in start menu.');
  equal(await c.text('App', { mode: 'switch', name: 'explorer' }), 'Switched to Documents - File Explorer window.');
  equal(await c.text('App', { mode: 'resize', window_loc: [10, 20], window_size: [800, 500] }), 'Documents - File Explorer resized to 800x500 at 10,20.');
  await c.call('App', { mode: 'switch', name: 'Calculator' });
  await c.call('Shortcut', { shortcut: 'alt+f4' });
  ok(!c.s.state.windows.some((w) => w.title === 'Calculator'));
  await c.call('App', { mode: 'launch', name: 'notepad' });
  const second = c.s.state.focusedWindow!;
  match(await c.text('Process', { mode: 'kill', pid: second.pid }), /Terminated 1 process/);
  ok(!c.s.state.windows.includes(second));
  equal(await c.text('App', { mode: 'switch', name: 'Zork' }), 'Application Zork not found.');
});

test('PowerShell: Response/Status Code, files through Set-/Get-Content and base64, exit codes, unknown commands', async () => {
  equal(await c.text('PowerShell', { command: "Set-Content -Path 'C:\\Temp\\a.txt' -Value 'line one'; Get-Content C:\\temp\\A.TXT" }), 'Response: line one\r\n\nStatus Code: 0');
  equal(c.s.state.files.get('C:\\Temp\\a.txt')?.toString(), 'line one\r\n');
  equal(await c.text('PowerShell', { command: "[IO.File]::WriteAllBytes('C:\\Temp\\b.bin', [Convert]::FromBase64String('AAEC/w=='))" }), 'Response: \nStatus Code: 0');
  deepStrictEqual([...c.s.state.files.get('C:\\Temp\\b.bin')!], [0, 1, 2, 255]);
  equal(await c.text('PowerShell', { command: "[Convert]::ToBase64String([IO.File]::ReadAllBytes('C:\\Temp\\b.bin'))" }), 'Response: AAEC/w==\r\n\nStatus Code: 0');
  equal(await c.text('PowerShell', { command: 'Test-Path C:\\Temp\\b.bin; Test-Path C:\\nope' }), 'Response: True\r\nFalse\r\n\nStatus Code: 0');
  equal(await c.text('PowerShell', { command: 'Write-Output "home=$HOME"; exit 7' }), 'Response: home=C:\\Users\\vmhub\r\n\nStatus Code: 7');
  equal(await c.text('PowerShell', { command: 'cmd /c exit 3; Write-Output $LASTEXITCODE' }), 'Response: 3\r\n\nStatus Code: 0');
  match(await c.text('PowerShell', { command: 'Frobnicate-Thing' }), /^Response: Frobnicate-Thing : The term 'Frobnicate-Thing' is not recognized[^]*\nStatus Code: 1$/);
  match(await c.text('PowerShell', { command: 'Get-Process' }), /ProcessName[^]*notepad/);
  equal(await c.text('PowerShell', { command: 'Start-Sleep -Seconds 3', timeout: 1 }), 'Response: Command execution timed out\nStatus Code: 1');
});

test('PowerShell: the vmhub adapter envelopes (home, put/get/rename/remove, exec argv, screen, clipboard)', async () => {
  const b = (s: string | Buffer) => Buffer.from(s).toString('base64');
  const ps = (s: string) => c.text('PowerShell', { command: s });
  equal(await ps('# vmhub:home\n...'), 'Response: vmhub-home C:\\Users\\vmhub\r\n\nStatus Code: 0');
  equal(await ps(`# vmhub:put\n$vmPath = '${b('C:\\Users\\vmhub\\new\\f.bin.vmhub-part')}'\n$vmData = '${b(Buffer.from([1, 2, 3]))}'\n$vmMode = 'create'`), 'Response: vmhub-put 3\r\n\nStatus Code: 0');
  await ps(`# vmhub:put\n$vmPath = '${b('C:\\Users\\vmhub\\new\\f.bin.vmhub-part')}'\n$vmData = '${b(Buffer.from([4]))}'\n$vmMode = 'append'`);
  equal(await ps(`# vmhub:rename\n$vmFrom = '${b('C:\\Users\\vmhub\\new\\f.bin.vmhub-part')}'\n$vmTo = '${b('C:\\Users\\vmhub\\new\\f.bin')}'`), 'Response: vmhub-rename ok\r\n\nStatus Code: 0');
  deepStrictEqual([...c.s.state.files.get('C:\\Users\\vmhub\\new\\f.bin')!], [1, 2, 3, 4]);
  equal(await ps(`# vmhub:get\n$vmPath = '${b('C:\\Users\\vmhub\\new\\f.bin')}'\n$vmOffset = 1\n$vmLength = 2`), `Response: vmhub-get {"size":4,"data":"${Buffer.from([2, 3]).toString('base64')}"}\r\n\nStatus Code: 0`);
  equal(await ps(`# vmhub:get\n$vmPath = '${b('C:\\nope')}'\n$vmOffset = 0\n$vmLength = 2`), 'Response: vmhub-get {"missing":true}\r\n\nStatus Code: 0');
  equal(await ps(`# vmhub:remove\n$vmPath = '${b('C:\\Users\\vmhub\\new\\f.bin')}'`), 'Response: vmhub-remove ok\r\n\nStatus Code: 0');
  equal(c.s.state.files.has('C:\\Users\\vmhub\\new\\f.bin'), false);
  equal(await ps('# vmhub:screen'), 'Response: vmhub-screen {"x":0,"y":0,"width":2560,"height":1440}\r\n\nStatus Code: 0');
  await ps(`# vmhub:clip-set\n$vmText = '${b('clip ✓')}'`);
  equal(c.s.state.clipboard, 'clip ✓');
  const exec = async (argv: string[], extra = '') => {
    const out = await ps(`# vmhub:exec\n$vmArgv = @(${argv.map((a) => `'${b(a)}'`).join(', ')})\n$vmCwd = ''\n$vmStdin = '${b('in\u0000put')}'\n$vmTimeoutMs = 1000\n$vmMax = 1048576${extra}`);
    const o = JSON.parse(/vmhub-exec (.*)\r\n/.exec(out)![1]);
    return { ...o, stdout: Buffer.from(o.stdout, 'base64').toString(), stderr: Buffer.from(o.stderr, 'base64').toString() };
  };
  deepStrictEqual(await exec(['cmd.exe', '/c', 'echo', 'vmhub-conformance']), { exit: 0, timed_out: false, truncated: false, stdout: 'vmhub-conformance\r\n', stderr: '' });
  deepStrictEqual(await exec(['powershell.exe', '-NoProfile', '-Command', "[Console]::Error.WriteLine('vmhub-conformance-err'); exit 3"]), { exit: 3, timed_out: false, truncated: false, stdout: '', stderr: 'vmhub-conformance-err\r\n' });
  equal((await exec(['powershell.exe', '-NoProfile', '-Command', "'/' + ((Get-Location).Path -replace '\\\\','/')"])).stdout, '/C:/Users/vmhub\r\n');
  equal((await exec(['powershell.exe', '-NoProfile', '-Command', '[Console]::Out.Write([Console]::In.ReadToEnd())'])).stdout, 'in\u0000put');
  const slow = await exec(['powershell.exe', '-NoProfile', '-Command', 'Start-Sleep -Seconds 5']);
  deepStrictEqual([slow.exit, slow.timed_out], [null, true]);
  equal((await exec(['whoami.exe'])).stdout, 'standin\\vmhub\r\n');
  const missing = await exec(['nosuch.exe']);
  equal(missing.exit, 127);
  equal(c.s.state.powershell.filter((s) => s.startsWith('# vmhub:exec')).length, 7);
});

test('FileSystem: write/read/list/info/copy/move/delete/search; relative paths land on the Desktop', async () => {
  equal(await c.text('FileSystem', { mode: 'write', path: 'notes.txt', content: 'a\nb\n' }), 'Written to C:\\Users\\vmhub\\Desktop\\notes.txt (6 bytes)');
  equal(c.s.state.files.get('C:\\Users\\vmhub\\Desktop\\notes.txt')?.toString(), 'a\r\nb\r\n');
  equal(await c.text('FileSystem', { mode: 'read', path: 'C:\\Users\\vmhub\\Desktop\\notes.txt' }), 'File: C:\\Users\\vmhub\\Desktop\\notes.txt\na\nb\n');
  equal(await c.text('FileSystem', { mode: 'read', path: 'notes.txt', offset: 2, limit: 1 }), 'File: C:\\Users\\vmhub\\Desktop\\notes.txt\nLines 2-2 of 2:\nb\n');
  match(await c.text('FileSystem', { mode: 'list', path: 'C:\\Users\\vmhub' }), /^Directory: C:\\Users\\vmhub\n\[DIR\] {2}Desktop/);
  equal(await c.text('FileSystem', { mode: 'copy', path: 'notes.txt', destination: 'copy.txt' }), 'Copied file: C:\\Users\\vmhub\\Desktop\\notes.txt -> C:\\Users\\vmhub\\Desktop\\copy.txt');
  equal(await c.text('FileSystem', { mode: 'move', path: 'copy.txt', destination: 'moved.txt' }), 'Moved: C:\\Users\\vmhub\\Desktop\\copy.txt -> C:\\Users\\vmhub\\Desktop\\moved.txt');
  match(await c.text('FileSystem', { mode: 'search', path: 'C:\\Users\\vmhub', pattern: '*.txt', recursive: true }), /moved\.txt/);
  equal(await c.text('FileSystem', { mode: 'delete', path: 'moved.txt' }), 'Deleted file: C:\\Users\\vmhub\\Desktop\\moved.txt');
  equal(await c.text('FileSystem', { mode: 'read', path: 'moved.txt' }), 'Error: File not found: C:\\Users\\vmhub\\Desktop\\moved.txt');
  match(await c.text('FileSystem', { mode: 'info', path: 'notes.txt' }), /Size: 6 bytes/);
});

test('Wait, WaitFor, MultiSelect, MultiEdit, Notification, Registry, Scrape', async () => {
  equal(await c.text('Wait', { duration: 0 }), 'Waited for 0 seconds.');
  await c.call('App', { mode: 'switch', name: 'Untitled - Notepad' });
  match(await c.text('WaitFor', { condition: 'active_window', window_name: 'notepad', timeout: 2 }), /^WaitFor condition 'active_window' satisfied after [\d.]+s and 1 attempt\(s\): active window matched 'Untitled - Notepad'\.$/);
  const r = await c.call('WaitFor', { condition: 'text_exists', text: 'never-there', timeout: 0.3, interval: 0.1 });
  ok(r.isError);
  const [x, y] = editor();
  equal(await c.text('MultiSelect', { locs: [[x, y], [x + 5, y]] }), `Multi-selected elements at:\n(${x},${y})\n(${x + 5},${y})`);
  await c.call('Type', { text: '', loc: [x, y], clear: true });
  equal(await c.text('MultiEdit', { locs: [[x, y, 'multi']] }), `Multi-edited elements at: (${x},${y}) with text 'multi'`);
  equal(c.s.state.textBox, 'multi');
  equal(await c.text('Notification', { title: 't', message: 'm', app_id: 'a' }), 'Notification sent: t - m');
  match(await c.text('Registry', { mode: 'get', path: 'HKCU:\\x' }), /no registry/);
  ok((await c.call('Scrape', { url: 'https://example.com' })).isError);
});

test('bad arguments answer a tool error naming the field, as pydantic validation does', async () => {
  const r = await c.call('Click', { loc: [1, 2], button: 'side' });
  ok(r.isError);
  match(r.content[0].type === 'text' ? r.content[0].text : '', /^Error calling tool 'Click': 1 validation error for call\[Click\]\nbutton\n {2}Input should be 'left', 'right' or 'middle'/);
  match((await c.call('Click', {})).content[0].type === 'text' ? ((await c.call('Click', {})).content[0] as { text: string }).text : '', /Either loc or label must be provided\./);
});
