// Windows through the built server and the SDK client, on the windows-standin golden: a Docker
// container running @vmhub/windows-mcp-standin — a Node MCP server with the exact tools/list of
// CursorTouch/Windows-MCP 0.8.2 (and 0.5.8) over a simulated desktop — reached as a real guest's
// Windows-MCP would be, through the provider's port path (standins/goldens/
// windows-standin/README.md says what it is and is not). Effects are read from the stand-in's own
// state inside the container (its `ctl state`), faults are switched there too (`ctl faults`), and
// teardown is checked on the engine. Stand-in templates are listed only with VMHUB_STANDIN_TEMPLATES=1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { DOCKER_TEMPLATES } from '@vmhub/provider-docker';
import { serveGitRepo, type ServedRepo } from './git-repo.ts';
import { BIN, connect, errorCode, leaseReady, machineBox, type Session } from './harness.ts';
import { assertStandinListedOnlyWithEnv } from './standin-checks.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args, { maxBuffer: 64 * 1024 * 1024 }).then((r) => r.stdout.trim());

// windows-standin makes its key per lease (provider_options.lease_secrets); the 0.5.8 template below
// instead starts its server with this fixed key and the adapter takes it from the vmhub host's
// CURSORTOUCH_AUTH_KEY — both paths a deployment may use.
const KEY = 'vmhub-standin-test-key';
const box = machineBox('windows', 'win');
const { instance } = box;

let s: Session;
const leases: string[] = [];
let repo: ServedRepo | undefined;

const base = DOCKER_TEMPLATES.find((t) => t.id === 'windows-standin');
// 0.5.8 is chosen per template by the container env the golden's session reads; this one has a
// fixed key (no lease secret) and bounds each Windows-MCP call at 3 s so the slow fault answers
// TIMEOUT quickly.
const old = base && {
  ...base,
  id: 'windows-standin-058',
  description: `${base.description} (Windows-MCP 0.5.8)`,
  provider_options: { env: { WINDOWS_MCP_AUTH_KEY: KEY, WINDOWS_MCP_STANDIN_VERSION: '0.5.8' } }, // no lease_secrets
  adapter_options: { ...(base.adapter_options ?? {}), call_timeout_ms: 3000 },
};

/** The stand-in's own view of its desktop, read inside the container. */
async function state(lease: string): Promise<any> {
  return JSON.parse(await docker('exec', `vmhub-${instance}-${lease}`, 'node', '/opt/windows-mcp/windows-mcp-standin.mjs', 'ctl', '--port', '8000', 'state'));
}
async function faults(lease: string, f: Record<string, unknown>): Promise<void> {
  await docker('exec', `vmhub-${instance}-${lease}`, 'node', '/opt/windows-mcp/windows-mcp-standin.mjs', 'ctl', '--port', '8000', 'faults', JSON.stringify(f));
}
const win = (st: any, title: string) => st.windows.find((w: any) => w.title === title);
const center = (w: any) => ({ x: w.x + Math.floor(w.width / 2), y: w.y + Math.floor(w.height / 2) });
const imageHash = (r: any) => createHash('sha256').update(r.content.find((c: any) => c.type === 'image').data).digest('hex');
const ok = (r: any) => assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));

async function lease(template: string): Promise<string> {
  return (await leaseReady(s, { template, ttl_seconds: 600 }, 90, (id) => leases.push(id))).lease_id;
}

before(async () => {
  assert.ok(base, 'provider-docker offers windows-standin');
  repo = await serveGitRepo(box.dir, { 'README.md': 'cloned onto Windows\n', 'docs/a.txt': 'nested\n' });
  box.write({ templates: [old], clone: { allowed_schemes: ['git'], allow_private_hosts: true } });
  // Content-addressed: built once (a few minutes, .debs cached), then reused.
  await run(process.execPath, [BIN, 'golden', 'build', 'windows-standin'], { env: { ...process.env, VMHUB_CONFIG: box.configFile }, maxBuffer: 64 * 1024 * 1024 });
  s = await connect(box, { VMHUB_STANDIN_TEMPLATES: '1', CURSORTOUCH_AUTH_KEY: KEY });
});

after(async () => {
  repo?.stop();
  await box.end(s, leases);
});

describe('windows: an agent drives the Windows-MCP stand-in through the adapter', { timeout: 240_000 }, () => {
  let id = '';

  it('the stand-in template is listed only with VMHUB_STANDIN_TEMPLATES=1', async () => {
    await assertStandinListedOnlyWithEnv(box, s, 'windows-standin', 'windows', { CURSORTOUCH_AUTH_KEY: KEY });
  });

  it('0.8.2: lease → ready → a screenshot of the 2560x1440 virtual desktop (downscaled by Windows-MCP, mapped back)', async () => {
    id = await lease('windows-standin');
    const st = await state(id);
    assert.equal(st.version, '0.8.2');
    // the key is this lease's own: random, in the container only — not the host's CURSORTOUCH_AUTH_KEY
    const env: string[] = JSON.parse(await docker('inspect', `vmhub-${instance}-${id}`))[0].Config.Env;
    const key = env.find((e) => e.startsWith('WINDOWS_MCP_AUTH_KEY='))?.slice('WINDOWS_MCP_AUTH_KEY='.length) ?? '';
    assert.ok(key.length >= 24 && key !== KEY, 'a per-lease key');
    const shot = await s.call('vm_screenshot', { lease_id: id });
    ok(shot);
    assert.deepEqual(shot.structuredContent.screen, { width: 2560, height: 1440 });
    assert.ok((await state(id)).screenshots >= 1, 'the screenshot came from the stand-in');
  });

  it('click lands on the screen point asked for, focuses that window, and changes the next screenshot', async () => {
    const before = await s.call('vm_screenshot', { lease_id: id });
    const explorer = win(await state(id), 'Documents - File Explorer');
    const p = { x: explorer.x + explorer.width - 60, y: explorer.y + explorer.height - 40 }; // right of Notepad, inside Explorer
    ok(await s.call('vm_click', { lease_id: id, x: p.x, y: p.y, coordinate_space: 'screen' }));
    const st = await state(id);
    assert.deepEqual({ x: st.clicks.at(-1).x, y: st.clicks.at(-1).y }, p);
    assert.equal(st.focused, 'Documents - File Explorer');
    assert.notEqual(imageHash(await s.call('vm_screenshot', { lease_id: id })), imageHash(before), 'the focused title bar is drawn differently');
  });

  it('list_windows, focus by title, and inspect from the UI tree', async () => {
    const listed = await s.call('vm_list_windows', { lease_id: id });
    ok(listed);
    const titles = listed.structuredContent.windows.map((w: any) => w.title);
    assert.ok(titles.includes('Untitled - Notepad') && titles.includes('Documents - File Explorer'), titles.join(', '));
    ok(await s.call('vm_focus', { lease_id: id, window: 'Untitled - Notepad' }));
    assert.equal((await state(id)).focused, 'Untitled - Notepad');
    const tree = await s.call('vm_inspect', { lease_id: id });
    ok(tree);
    assert.match(JSON.stringify(tree.structuredContent.tree), /Text Editor/);
  });

  it('type Unicode with shell metacharacters into the text box, Return via vm_key, paste via the clipboard', async () => {
    const n = win(await state(id), 'Untitled - Notepad');
    ok(await s.call('vm_click', { lease_id: id, ...center(n), coordinate_space: 'screen' }));
    const text = 'héllo wörld 你好 $HOME `x` 100% "q" \'s\' ;|&';
    ok(await s.call('vm_type', { lease_id: id, text }));
    assert.ok((await state(id)).textBox.endsWith(text), JSON.stringify((await state(id)).textBox));
    ok(await s.call('vm_key', { lease_id: id, keys: 'Return' }));
    assert.ok((await state(id)).textBox.endsWith(`${text}\n`));
    const before = (await state(id)).clipboard;
    ok(await s.call('vm_paste', { lease_id: id, text: 'pasted ✓ line' }));
    const st = await state(id);
    assert.ok(st.textBox.endsWith(`${text}\npasted ✓ line`), JSON.stringify(st.textBox));
    assert.equal(st.clipboard, before, 'the old clipboard is restored');
  });

  it('scroll and drag: the stand-in records the points; a title-bar drag moves the window', async () => {
    const n = win(await state(id), 'Untitled - Notepad');
    const c = center(n);
    ok(await s.call('vm_scroll', { lease_id: id, x: c.x, y: c.y, direction: 'down', amount: 3, coordinate_space: 'screen' }));
    const sc = (await state(id)).scrolls.at(-1);
    assert.deepEqual([sc.x, sc.y, sc.direction, sc.wheel_times], [c.x, c.y, 'down', 3]);
    const from = { x: n.x + 200, y: n.y + 12 };
    ok(await s.call('vm_drag', { lease_id: id, from, to: { x: from.x + 100, y: from.y + 50 }, coordinate_space: 'screen' }));
    const moved = win(await state(id), 'Untitled - Notepad');
    assert.deepEqual([moved.x, moved.y], [n.x + 100, n.y + 50]);
  });

  it('launch and close an app', async () => {
    const l = await s.call('vm_launch', { lease_id: id, app: 'calculator' });
    ok(l);
    assert.ok(win(await state(id), 'Calculator'), 'a Calculator window opened');
    ok(await s.call('vm_close', { lease_id: id, window: 'Calculator' }));
    assert.equal(win(await state(id), 'Calculator'), undefined, 'closed');
  });

  it('put and get a binary file byte-exact; exec exit codes and separate stderr', async () => {
    const data = randomBytes(40 * 1024);
    ok(await s.call('vm_put_file', { lease_id: id, path: '/C:/Users/vmhub/blob.bin', content_base64: data.toString('base64') }));
    const st = await state(id);
    assert.ok(Buffer.from(st.files['C:\\Users\\vmhub\\blob.bin'], 'base64').equals(data), 'the stand-in holds the bytes');
    const got = await s.call('vm_get_file', { lease_id: id, path: '/C:/Users/vmhub/blob.bin' });
    ok(got);
    assert.ok(Buffer.from(got.structuredContent.content_base64, 'base64').equals(data));
    const echo = await s.call('vm_exec', { lease_id: id, command: ['cmd.exe', '/c', 'echo', 'vmhub'] });
    ok(echo);
    assert.equal(echo.structuredContent.exit_code, 0);
    assert.equal(echo.structuredContent.stdout, 'vmhub\r\n');
    const r = await s.call('vm_exec', { lease_id: id, command: ['powershell.exe', '-NoProfile', '-Command', "[Console]::Error.WriteLine('err'); exit 3"] });
    ok(r);
    assert.equal(r.structuredContent.exit_code, 3);
    assert.equal(r.structuredContent.stderr, 'err\r\n');
    // shell is PowerShell on Windows (there is no /bin/sh to run it).
    const sh = await s.call('vm_exec', { lease_id: id, shell: "Write-Output 'vmhub shell'; exit 4" });
    ok(sh);
    assert.deepEqual([sh.structuredContent.exit_code, sh.structuredContent.stdout, sh.structuredContent.stderr], [4, 'vmhub shell\r\n', '']);
  });

  it('clone_repo: the host clones, the guest unpacks the tarball (tar.exe) into the destination', async () => {
    const r = await s.call('vm_clone_repo', { lease_id: id, url: repo!.url, dest: '/C:/Users/vmhub/src/repo' });
    ok(r);
    const files = (await state(id)).files;
    assert.equal(Buffer.from(files['C:\\Users\\vmhub\\src\\repo\\README.md'] ?? '', 'base64').toString(), 'cloned onto Windows\n', Object.keys(files).join(', '));
    assert.equal(Buffer.from(files['C:\\Users\\vmhub\\src\\repo\\docs\\a.txt'] ?? '', 'base64').toString(), 'nested\n');
    assert.ok(files['C:\\Users\\vmhub\\src\\repo\\.git\\HEAD'], 'the .git directory came along');
    assert.match(r.structuredContent.commit, /^[0-9a-f]{40}$/);
  });

  it('faults: a wrong key → CAPABILITY_UNAVAILABLE naming the key; a refused Host → CAPABILITY_UNAVAILABLE; quarantine → retryable', async () => {
    await faults(id, { unauthorized: true });
    const denied = await s.call('vm_screenshot', { lease_id: id });
    assert.equal(errorCode(denied), 'CAPABILITY_UNAVAILABLE', JSON.stringify(denied.structuredContent));
    assert.match(denied.structuredContent.message, /CURSORTOUCH_AUTH_KEY/);
    await faults(id, { allowedHosts: ['windows.invalid'] });
    const host = await s.call('vm_screenshot', { lease_id: id });
    assert.equal(errorCode(host), 'CAPABILITY_UNAVAILABLE', JSON.stringify(host.structuredContent));
    assert.match(host.structuredContent.message, /host/i);
    await faults(id, { quarantine: true });
    const q = await s.call('vm_screenshot', { lease_id: id });
    assert.ok(q.isError, JSON.stringify(q.structuredContent));
    assert.equal(q.structuredContent.retryable, true, JSON.stringify(q.structuredContent));
    assert.match(q.structuredContent.message, /quarantined/i);
    await faults(id, {});
    ok(await s.call('vm_screenshot', { lease_id: id }));
  });

  it('faults: "Desktop state is empty" is answered by a Snapshot and one retry (the click still lands)', async () => {
    await faults(id, { snapshotFirst: true });
    const before = (await state(id)).snapshots;
    ok(await s.call('vm_click', { lease_id: id, x: 40, y: 40, coordinate_space: 'screen' }));
    const st = await state(id);
    assert.deepEqual({ x: st.clicks.at(-1).x, y: st.clicks.at(-1).y }, { x: 40, y: 40 });
    assert.ok(st.snapshots > before, 'the adapter took a Snapshot');
    await faults(id, {});
  });

  it('0.5.8 (fixed key) without the key on the vmhub host: CAPABILITY_UNAVAILABLE naming CURSORTOUCH_AUTH_KEY', async () => {
    const o = await lease('windows-standin-058');
    const nokey = await connect(box, { VMHUB_STANDIN_TEMPLATES: '1' }, 'no-key');
    try {
      ok(await nokey.call('vm_screenshot', { lease_id: id })); // the per-lease key needs nothing on the host
      const r = await nokey.call('vm_screenshot', { lease_id: o });
      assert.equal(errorCode(r), 'CAPABILITY_UNAVAILABLE', JSON.stringify(r.structuredContent));
      assert.match(r.structuredContent.message, /CURSORTOUCH_AUTH_KEY/);
    } finally {
      await nokey.close();
    }
  });

  it('0.5.8 (the -Tool names): screenshot, click, type, paste, files and exec through the same adapter', async () => {
    const o = leases[1];
    const st0 = await state(o);
    assert.equal(st0.version, '0.5.8');
    const shot = await s.call('vm_screenshot', { lease_id: o });
    ok(shot);
    assert.deepEqual(shot.structuredContent.screen, { width: 2560, height: 1440 });
    const n = win(st0, 'Untitled - Notepad');
    ok(await s.call('vm_click', { lease_id: o, ...center(n), coordinate_space: 'screen' }));
    ok(await s.call('vm_type', { lease_id: o, text: 'old server' }));
    ok(await s.call('vm_paste', { lease_id: o, text: ' + paste' }));
    const st = await state(o);
    assert.equal(st.textBox, 'old server + paste');
    assert.ok(st.calls.some((c: any) => c.tool === 'Type-Tool'), 'typed with Type-Tool');
    ok(await s.call('vm_put_file', { lease_id: o, path: '/C:/Temp/old.txt', content: 'via PowerShell\n' }));
    assert.equal(Buffer.from((await state(o)).files['C:\\Temp\\old.txt'], 'base64').toString(), 'via PowerShell\n');
    const r = await s.call('vm_exec', { lease_id: o, command: ['cmd.exe', '/c', 'exit', '4'] });
    ok(r);
    assert.equal(r.structuredContent.exit_code, 4);
  });

  it('0.5.8 slow calls → TIMEOUT (adapter call bound 3 s on this template)', async () => {
    const o = leases[1];
    await faults(o, { slowMs: { 'Click-Tool': 20_000 } });
    const r = await s.call('vm_click', { lease_id: o, x: 10, y: 10, coordinate_space: 'screen' });
    assert.equal(errorCode(r), 'TIMEOUT', JSON.stringify(r.structuredContent));
    await faults(o, {});
  });

  it('release → the containers are gone from the engine', async () => {
    for (const l of leases.splice(0)) {
      ok(await s.call('vm_lease_release', { lease_id: l }));
      assert.equal(await docker('ps', '-aq', '--filter', `name=vmhub-${instance}-${l}`), '', `container of ${l} removed`);
    }
  });
});
