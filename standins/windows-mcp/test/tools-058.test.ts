// 0.5.8's "-Tool" set over the same desktop: State-Tool's tables, no size text, labels absent.
import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePng } from '../src/index.ts';
import { type Conn, open } from './client.ts';

let c: Conn;
before(async () => { c = await open({ version: '0.5', screen: { width: 1280, height: 800 } }); });
after(async () => { await c.close(); });

const notepad = () => c.s.state.windows.find((w) => w.title === 'Untitled - Notepad')!;

test('State-Tool: the 0.5.8 sections and element table; with use_vision a PNG and no size text', async () => {
  const r = await c.call('State-Tool', { use_vision: true });
  const t = r.content[0].type === 'text' ? r.content[0].text : '';
  match(t, /^\n {4}Default Language of User:\n {4}English \(United States\) with encoding: utf-8\n\n {4}Focused App:\n {4}Name {18}Depth/);
  match(t, /\n {4}List of Interactive Elements:\n {6}Label {2}App Name {19}ControlType {6}Name {9}Value {4}Shortcut {4}Coordinates {4}IsFocused\n-------  -{25}  /);
  match(t, /\n {6}6 {2}Untitled - Notepad {9}EditControl {6}Text Editor {5}/);
  ok(!/Screenshot/.test(t));
  const img = r.content[1];
  ok(img?.type === 'image');
  deepStrictEqual([decodePng(Buffer.from(img.data, 'base64')).width, decodePng(Buffer.from(img.data, 'base64')).height], [1280, 800]);
});

test('Click-Tool, Type-Tool, Shortcut-Tool, Scroll-Tool, Move-Tool, Drag-Tool, Wait-Tool, App-Tool', async () => {
  const w = notepad();
  const [x, y] = [w.x + 200, w.y + 200];
  equal(await c.text('Click-Tool', { loc: [x, y], clicks: 3 }), `Triple left clicked at (${x},${y}).`);
  equal(await c.text('Type-Tool', { loc: [x, y], text: 'old', press_enter: true }), `Typed old at (${x},${y}).`);
  equal(c.s.state.textBox, 'old\n');
  await c.text('Type-Tool', { loc: [x, y], text: 'new', clear: true });
  equal(c.s.state.textBox, 'new');
  equal(await c.text('Shortcut-Tool', { shortcut: 'backspace' }), 'Pressed backspace.');
  equal(c.s.state.textBox, 'ne');
  equal(await c.text('Scroll-Tool', { loc: [x, y], wheel_times: 2 }), `Scrolled vertical down by 2 wheel times at (${x},${y}).`);
  equal(await c.text('Move-Tool', { to_loc: [w.x + 50, w.y + 10] }), `Moved the mouse pointer to (${w.x + 50},${w.y + 10}).`);
  const [x0, y0] = [w.x, w.y];
  equal(await c.text('Drag-Tool', { to_loc: [x0 + 150, y0 + 10] }), `Dragged the element to (${x0 + 150},${y0 + 10}).`);
  equal(notepad().x, x0 + 100);
  equal(await c.text('Wait-Tool', { duration: 0 }), 'Waited for 0 seconds.');
  equal(await c.text('App-Tool', { mode: 'launch', name: 'notepad' }), 'Notepad launched.');
  equal(c.s.state.windows.filter((o) => o.process === 'notepad.exe').length, 2);
});

test('Powershell-Tool: text-mode newlines (\\n), the vmhub envelopes, exit codes', async () => {
  equal(await c.text('Powershell-Tool', { command: 'Write-Output one; Write-Output two; exit 2' }), 'Response: one\ntwo\n\nStatus Code: 2');
  equal(await c.text('Powershell-Tool', { command: '# vmhub:home' }), 'Response: vmhub-home C:\\Users\\vmhub\n\nStatus Code: 0');
  equal(await c.text('Powershell-Tool', { command: '# vmhub:screen' }), 'Response: vmhub-screen {"x":0,"y":0,"width":1280,"height":800}\n\nStatus Code: 0');
});

test('0.5.8 has no labels, no Clipboard, no FileSystem', async () => {
  ok((await c.call('Click-Tool', { label: 1 })).isError); // loc is required, label unknown
  match(JSON.stringify((await c.call('Clipboard', { mode: 'get' })).content), /Unknown tool: 'Clipboard'/);
});
