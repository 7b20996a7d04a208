// The window/element tables and the dedent of Windows-MCP's text, checked against Python's own
// tabulate and textwrap (Debian python3-tabulate) when the host has them.
import { equal } from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { open } from './client.ts';

const PY = '/usr/bin/python3';
const hasTabulate = spawnSync(PY, ['-c', 'import tabulate'], { stdio: 'ignore' }).status === 0;

test('Snapshot (0.8.2) and State-Tool (0.5.8) text equal Python tabulate + dedent over the same data', { skip: !hasTabulate && 'needs /usr/bin/python3 with tabulate (apt-get install python3-tabulate)' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'standin-text-'));
  try {
    const files: string[] = [];
    for (const version of ['0.8.2', '0.5.8']) {
      const c = await open({ version });
      const r = await c.call(version === '0.8.2' ? 'Snapshot' : 'State-Tool', { use_vision: version === '0.8.2' });
      const d = c.s.state;
      const row = (w: typeof d.windows[number]) => [w.title, 0, w.status, w.width, w.height, w.handle];
      const els = d.interactiveElements().map((e) => ({ title: e.window.title, ct: e.controlTypeName, name: e.name, value: e.value ?? '', center: `(${e.x + Math.floor(e.width / 2)},${e.y + Math.floor(e.height / 2)})`, focused: e.focused }));
      const f = join(dir, `${version}.json`);
      writeFileSync(f, JSON.stringify({ text: r.content[0].type === 'text' ? r.content[0].text : '', pointer: d.pointer, screen: d.screen, focused: row(d.focusedWindow!), others: [...d.windows].reverse().filter((w) => !w.focused).map(row), els }));
      files.push(f);
      await c.close();
    }
    const out = execFileSync(PY, [fileURLToPath(new URL('./text-formats.py', import.meta.url)), ...files]).toString();
    equal(out, '0.8.2 equal: True\n0.5.8 equal: True\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
