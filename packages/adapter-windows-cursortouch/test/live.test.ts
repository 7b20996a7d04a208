/**
 * The adapter against the stand-in Windows-MCP, both published tool sets (0.5.8's "-Tool" names,
 * 0.8.2's current ones), every capability with its effect read from the stand-in's simulated
 * desktop: the text box, clicks at the mapped position, the clipboard, the files, PowerShell.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { makeTar } from '@vmhub/conformance';
import type { ElementNode, OpenSession } from '@vmhub/core';
import { startStandin } from '@vmhub/windows-mcp-standin';
import windows, { createWindowsAdapter } from '../src/index.ts';
import { callCtx, standinLease, type Standin, type StandinLease } from './standin.ts';

const KEY = 'test-key-' + randomBytes(8).toString('hex');
function findNode(n: ElementNode, name: string): ElementNode | undefined {
  if (n.name === name) return n;
  for (const c of n.children ?? []) { const f = findNode(c, name); if (f) return f; }
  return undefined;
}
const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

for (const version of ['0.5.8', '0.8.2']) {
  describe(`windows-cursortouch on Windows-MCP ${version} (stand-in)`, () => {
    let standin: Standin;
    let l: StandinLease;
    let session: OpenSession;
    const ctx = () => callCtx(l.lease);

    before(async () => {
      standin = await startStandin({ version, authKey: KEY });
      l = standinLease(standin, KEY);
      session = await createWindowsAdapter().open(l.lease);
    });
    after(async () => {
      await session?.dispose();
      await l?.close();
      await standin?.close();
    });

    it('screenshot: the frame is the whole 2560x1440 desktop, though Windows-MCP sent a 1920x1080 image', async () => {
      const raw = await session.screenshot!(ctx());
      assert.equal(raw.width, 2560);
      assert.equal(raw.height, 1440);
      assert.equal(raw.format, 'rgb');
      assert.equal(raw.data.length, 2560 * 1440 * 3);
      assert.deepEqual(await session.screenSize!(ctx()), { width: 2560, height: 1440 });
    });

    it('click: screen pixels reach Windows-MCP unchanged (its coordinates are desktop pixels)', async () => {
      await session.click!(ctx(), { x: 2000, y: 1300, button: 'left', count: 1, modifiers: [] });
      assert.deepEqual(standin.state.clicks.at(-1), { x: 2000, y: 1300, button: 'left', clicks: 1 });
      await session.click!(ctx(), { x: 10, y: 20, button: 'right', count: 2, modifiers: [] });
      assert.deepEqual(standin.state.clicks.at(-1), { x: 10, y: 20, button: 'right', clicks: 2 });
      await assert.rejects(session.click!(ctx(), { x: 1, y: 1, button: 'left', count: 1, modifiers: ['ctrl'] }), code('INVALID_REQUEST'));
    });

    it('type: the text lands in the focused text box, typed where the pointer is', async () => {
      const notepad = (await session.listWindows!(ctx())).find((x) => x.title === 'Untitled - Notepad');
      assert.ok(notepad, 'the stand-in shows a Notepad');
      assert.equal((await session.focus!(ctx(), { window: notepad.id })).focused, true);
      const tree = await session.inspect!(ctx(), { max_depth: 10, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 });
      const win = tree.tree.children!.find((c) => c.name === 'Untitled - Notepad');
      const edit = JSON.stringify(win).includes('Text Editor') ? findNode(win!, 'Text Editor') : undefined;
      assert.ok(edit && edit.x !== undefined && edit.y !== undefined, 'inspect shows the text editor with its position');
      await session.click!(ctx(), { x: edit.x!, y: edit.y!, button: 'left', count: 1, modifiers: [] });
      await session.type!(ctx(), { text: 'hello windows 123' });
      assert.match(standin.state.textBox, /hello windows 123$/);
      assert.deepEqual(standin.state.clicks.at(-1), { x: edit.x, y: edit.y, button: 'left', clicks: 1 }, 'Type clicked where the pointer was');
    });

    it('key: chords arrive as Shortcut strings; an unknown key is refused before sending', async () => {
      await session.key!(ctx(), { keys: 'ctrl+shift+Escape Return' });
      assert.deepEqual(standin.state.keys.slice(-2), ['ctrl+shift+esc', 'enter']);
      const n = standin.state.keys.length;
      await assert.rejects(session.key!(ctx(), { keys: 'ctrl+NoSuchKeyVmhub' }), code('INVALID_REQUEST'));
      assert.equal(standin.state.keys.length, n);
    });

    it('paste: Unicode reaches the text box and the clipboard is restored', async () => {
      standin.state.clipboard = 'before';
      await session.paste!(ctx(), { text: 'ünïcödé ✓ 日本' });
      assert.match(standin.state.textBox, /ünïcödé ✓ 日本$/);
      assert.equal(standin.state.clipboard, 'before');
    });

    it('drag and scroll at the given points', async () => {
      await session.drag!(ctx(), { from: { x: 300, y: 300 }, to: { x: 900, y: 500 }, button: 'left' });
      const d = standin.state.drags.at(-1)!;
      assert.deepEqual(d.to, { x: 900, y: 500 });
      assert.deepEqual(standin.state.pointer, { x: 900, y: 500 });
      await session.scroll!(ctx(), { x: 700, y: 800, direction: 'down', amount: 3 });
      const s = standin.state.scrolls.at(-1)!;
      assert.deepEqual([s.x, s.y, s.direction, s.wheel_times], [700, 800, 'down', 3]);
    });

    it('windows: launch calc, focus another window and it, close it', async () => {
      const launched = await session.launch!(ctx(), { app: 'calc', args: [], wait_seconds: 5 });
      assert.ok(launched.window, 'a new window was reported');
      const id = launched.window!.id;
      assert.equal(launched.window!.title, 'Calculator');
      assert.ok(standin.state.windows.some((w: { handle: number | string }) => String(w.handle) === id));
      const explorer = (await session.listWindows!(ctx())).find((w) => /File Explorer/.test(w.title))!;
      await session.focus!(ctx(), { window: explorer.id });
      assert.equal((await session.listWindows!(ctx())).find((w) => w.focused)?.id, explorer.id);
      assert.equal((await session.focus!(ctx(), { window: 'Calculator' })).id, id);
      assert.equal((await session.listWindows!(ctx())).find((w) => w.focused)?.id, id);
      assert.deepEqual(await session.close!(ctx(), { window: id }), { window_id: id });
      assert.ok(!(await session.listWindows!(ctx())).some((w) => w.id === id), 'the window is gone');
      assert.equal(standin.state.keys.at(-1), 'alt+f4');
      await assert.rejects(session.focus!(ctx(), { window: 'no such window' }), code('NOT_FOUND'));
    });

    it('windows: two windows of one title cannot be told apart by App switch, and close refuses rather than close the wrong one', async () => {
      const first = (await session.listWindows!(ctx())).find((w) => w.title === 'Untitled - Notepad')!;
      const second = await session.launch!(ctx(), { app: 'notepad', args: [], wait_seconds: 5 });
      assert.ok(second.window && second.window.id !== first.id);
      const before = standin.state.windows.length;
      await assert.rejects(session.close!(ctx(), { window: first.id }), code('INVALID_REQUEST'));
      assert.equal(standin.state.windows.length, before, 'nothing was closed');
      await session.close!(ctx(), { window: second.window!.id });
      assert.equal(standin.state.windows.length, before - 1);
      assert.ok(standin.state.windows.some((w: { handle: number | string }) => String(w.handle) === first.id));
    });

    it('exec: exit code, separate streams, cwd, stdin', async () => {
      const ok = await session.exec!(ctx(), { argv: ['cmd.exe', '/c', 'echo', 'vmhub-conformance'], timeout_ms: 10_000, max_output_bytes: 65536 });
      assert.equal(ok.exit_code, 0);
      assert.equal(ok.stdout.toString().trim(), 'vmhub-conformance');
      const bad = await session.exec!(ctx(), { argv: ['powershell.exe', '-NoProfile', '-Command', "[Console]::Error.WriteLine('vmhub-conformance-err'); exit 3"], timeout_ms: 10_000, max_output_bytes: 65536 });
      assert.equal(bad.exit_code, 3);
      assert.match(bad.stderr.toString(), /vmhub-conformance-err/);
      assert.doesNotMatch(bad.stdout.toString(), /vmhub-conformance-err/);
      const pwd = await session.exec!(ctx(), { argv: ['powershell.exe', '-NoProfile', '-Command', "'/' + ((Get-Location).Path -replace '\\\\','/')"], cwd: '/C:/Windows', timeout_ms: 10_000, max_output_bytes: 65536 });
      assert.equal(pwd.stdout.toString().trim(), '/C:/Windows');
      const cat = await session.exec!(ctx(), { argv: ['powershell.exe', '-NoProfile', '-Command', '[Console]::Out.Write([Console]::In.ReadToEnd())'], stdin: 'vmhub stdin\n', timeout_ms: 10_000, max_output_bytes: 65536 });
      assert.equal(cat.stdout.toString(), 'vmhub stdin\n');
    });

    it('exec: a hostile argv reaches the program as data, never as PowerShell', async () => {
      const evil = ["a b", `it's`, '‘curly’', '$(whoami)', 'x; Remove-Item C:\\ -Recurse', '"q"'];
      const r = await session.exec!(ctx(), { argv: ['cmd.exe', '/c', 'echo', ...evil], timeout_ms: 10_000, max_output_bytes: 65536 });
      assert.equal(r.exit_code, 0);
      assert.equal(r.stdout.toString().trim(), evil.join(' '));
      const sent = standin.state.powershell.at(-1) as string;
      assert.ok(!sent.includes('Remove-Item') && !sent.includes('whoami'), 'the script carries the argv as base64 only');
    });

    it('exec: timeout_ms kills the command (timed_out, exit_code null)', async () => {
      const r = await session.exec!(ctx(), { argv: ['powershell.exe', '-NoProfile', '-Command', 'Start-Sleep -Seconds 5'], timeout_ms: 1000, max_output_bytes: 1024 });
      assert.equal(r.timed_out, true);
      assert.equal(r.exit_code, null);
    });

    it('files: 64 KB of random bytes in and out exactly, in chunks; NOT_FOUND; max_bytes', async () => {
      const data = randomBytes(64 * 1024);
      const before = standin.state.powershell.length;
      await session.putFile!(ctx(), { path: '/root/vmhub-test/blob.bin', data });
      assert.ok(standin.state.powershell.length - before > 10, 'the upload went in several chunks');
      const stored = [...standin.state.files.entries()].find(([k]) => k.toLowerCase() === 'c:\\users\\vmhub\\vmhub-test\\blob.bin');
      assert.ok(stored, `the file is at the home: ${[...standin.state.files.keys()].join(', ')}`);
      assert.ok(Buffer.from(stored[1]).equals(data), 'the guest holds the exact bytes');
      assert.ok(![...standin.state.files.keys()].some((k: string) => k.endsWith('.vmhub-part')), 'no partial file is left');
      const back = await session.getFile!(ctx(), { path: '/root/vmhub-test/blob.bin', max_bytes: 1 << 20 });
      assert.ok(back.equals(data));
      await session.putFile!(ctx(), { path: '/C:/Temp/x.txt', data: Buffer.from('0123456789') });
      assert.ok([...standin.state.files.keys()].some((k: string) => k.toLowerCase() === 'c:\\temp\\x.txt'));
      await assert.rejects(session.getFile!(ctx(), { path: '/C:/Temp/x.txt', max_bytes: 4 }), code('INVALID_REQUEST'));
      await assert.rejects(session.getFile!(ctx(), { path: '/root/no-such-file', max_bytes: 100 }), code('NOT_FOUND'));
    });

    it('clone_repo: the archive is unpacked at dest by tar.exe, .git kept, tarball removed', async () => {
      const tar = makeTar([{ path: 'README.md', data: 'vmhub clone\n' }, { path: '.git', type: 'dir' }, { path: '.git/HEAD', data: 'ref: refs/heads/main\n' }]);
      await session.cloneRepo!(ctx(), { dest: '/root/repo', archive: Readable.from([tar]) });
      const file = (name: string) => [...standin.state.files.entries()].find(([k]) => k.toLowerCase() === `c:\\users\\vmhub\\repo\\${name}`)?.[1];
      assert.equal(file('readme.md')?.toString(), 'vmhub clone\n');
      assert.equal(file('.git\\head')?.toString(), 'ref: refs/heads/main\n');
      assert.ok(![...standin.state.files.keys()].some((k: string) => /\.vmhub-clone-/.test(k)));
    });

    it('inspect: the UI Automation tree as ElementNodes', async () => {
      const r = await session.inspect!(ctx(), { max_depth: 10, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 });
      assert.equal(r.tree.role, 'desktop');
      assert.ok(r.tree.children!.length > 0, 'windows are listed');
      const flat = JSON.stringify(r.tree);
      assert.match(flat, /"name":"[^"]*Notepad[^"]*"/);
    });

    it('probe: everything declared works here', async () => {
      assert.deepEqual(await session.probe!(ctx()), {});
    });

    it('dispatch: the guest\'s own tools', async () => {
      const tools = await session.dispatch!(ctx(), { verb: 'windows_mcp_tools', args: {} }) as { tools: string[] };
      assert.ok(tools.tools.length > 5);
      const wait = version === '0.5.8' ? 'Wait-Tool' : 'Wait';
      const r = await session.dispatch!(ctx(), { verb: 'windows_mcp_call', args: { tool: wait, arguments: { duration: 0 } } }) as { text: string };
      assert.match(r.text, /wait/i);
    });
  });
}

describe('windows-cursortouch: the plugin', () => {
  it('declares every capability, contract 2', () => {
    assert.equal(windows.id, 'windows-cursortouch');
    assert.equal(windows.contractVersion, 2);
    assert.equal(windows.capabilities.length, 17);
  });
});
