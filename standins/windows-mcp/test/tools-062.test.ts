// 0.6.2: the unsuffixed names with `Shell`, no labels; Snapshot's pipe rows and no size text.
import { equal, match, ok } from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Conn, open } from './client.ts';

let c: Conn;
before(async () => { c = await open({ version: '0.6' }); });
after(async () => { await c.close(); });

test('Snapshot: desktops, window tables and "# id|window|control_type|name|coords|focus" rows; an image with use_vision', async () => {
  const r = await c.call('Snapshot', { use_vision: 'true' });
  const t = r.content[0].type === 'text' ? r.content[0].text : '';
  match(t, /^\n {4}Active Desktop:\n {4}Name\n-{15}\nDefault Desktop\n/);
  match(t, /\n {4}List of Interactive Elements:\n {4}# id\|window\|control_type\|name\|coords\|focus\n0\|Untitled - Notepad\|ButtonControl\|Minimize\|\(\d+,\d+\)\|False\n/);
  match(t, /\n6\|Untitled - Notepad\|EditControl\|Text Editor\|\(\d+,\d+\)\|True\n/);
  ok(!/Screenshot|Cursor Position/.test(t));
  equal(r.content[1]?.type, 'image');
});

test('Shell keeps \\r\\n, Click/Type/Move work with loc only, label is not a parameter', async () => {
  equal(await c.text('Shell', { command: 'Write-Output a; exit 5' }), 'Response: a\r\n\nStatus Code: 5');
  const w = c.s.state.windows.find((x) => x.title === 'Untitled - Notepad')!;
  const [x, y] = [w.x + 300, w.y + 300];
  equal(await c.text('Click', { loc: [x, y], clicks: 0 }), `Hover left clicked at (${x},${y}).`);
  equal(await c.text('Type', { loc: [x, y], text: 'six' }), `Typed six at (${x},${y}).`);
  equal(c.s.state.textBox, 'six');
  ok((await c.call('Click', { label: 1 })).isError);
  match(JSON.stringify((await c.call('PowerShell', { command: 'x' })).content), /Unknown tool: 'PowerShell'/);
});

test('quarantine in 0.6.2 is a tool error (its Snapshot has no try/except)', async () => {
  c.s.faults.quarantine = 1;
  const r = await c.call('Snapshot', { use_vision: true });
  ok(r.isError);
  match(JSON.stringify(r.content), /Error calling tool 'Snapshot': Screenshot is quarantined/);
  equal((await c.call('Snapshot', { use_vision: true })).content[1]?.type, 'image');
});
