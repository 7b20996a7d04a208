// macOS through the built server and the SDK client, on the macos-standin golden (a container
// with sshd and x11vnc behind an RFB front announcing 003.889 with ARD auth — NOT macOS): the
// template is listed only with VMHUB_STANDIN_TEMPLATES=1; the macos adapter drives it over VNC
// and SSH through provider-docker's guest ports. Effects are checked in the guest.
// Needs the golden (`vmhub-server golden build macos-standin`).
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@vmhub/test-kit';
import { connect, errorCode, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args).then((r) => r.stdout.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dir = mkdtempSync(join(tmpdir(), 'vmhub-macos-'));
const instance = `mac${randomBytes(3).toString('hex')}`;
const config = join(dir, 'config.json');
const box = { dir, instance, db: join(dir, 'vmhub.db'), fakeDir: '', configFile: config, cleanup: () => {} };
let s: Session;
let lease = '';
let gitDaemon: ChildProcess | undefined;
let gitPort = 0;

async function serveRepo(): Promise<void> {
  const base = join(dir, 'git');
  const work = join(base, 'src');
  const git = (...argv: string[]) => run('git', ['-C', work, ...argv], { env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  await run('mkdir', ['-p', work]);
  await run('git', ['init', '-q', '-b', 'main', work]);
  writeFileSync(join(work, 'README.md'), 'cloned onto the stand-in Mac\n');
  await git('add', '.'); await git('commit', '-qm', 'first');
  await run('git', ['clone', '-q', '--bare', work, join(base, 'repo.git')]);
  gitPort = await freePort();
  gitDaemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', `--base-path=${base}`, '--listen=127.0.0.1', `--port=${gitPort}`, base], { stdio: 'ignore' });
  await sleep(400);
}

async function guestText(path: string, want: (t: string) => boolean, ms = 8000): Promise<string> {
  const until = Date.now() + ms;
  let last = '';
  while (Date.now() < until) {
    const r = await s.call('vm_get_file', { lease_id: lease, path });
    if (!r.isError) { last = r.structuredContent.content ?? ''; if (want(last)) return last; }
    await sleep(200);
  }
  return last;
}

async function windows(): Promise<any[]> {
  const r = await s.call('vm_list_windows', { lease_id: lease });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  return r.structuredContent.windows;
}

/** An xterm (stand-in `open -a`) whose `cat` writes what is typed into `file`. */
async function sink(title: string, file: string, geometry: string): Promise<any> {
  const r = await s.call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-T', title, '-geometry', geometry, '-e', 'sh', '-c', `stty -icanon -echo; exec cat > ${file}`], wait_seconds: 15 });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  assert.ok(r.structuredContent.window, 'vm_launch reports the new window');
  return r.structuredContent.window;
}

before(async () => {
  await serveRepo();
  writeFileSync(config, JSON.stringify({ instance, db: box.db, reaper: { autostart: false }, clone: { allowed_schemes: ['git'], allow_private_hosts: true } }));
});
after(async () => {
  if (lease) await s?.call('vm_lease_release', { lease_id: lease }).catch(() => undefined);
  await s?.close();
  gitDaemon?.kill();
  await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
  rmSync(dir, { recursive: true, force: true });
});

describe('macos: the adapter through the server on the macos-standin golden', () => {
  it('macos-standin is not listed (and cannot be leased) without VMHUB_STANDIN_TEMPLATES', async () => {
    const plain = await connect(box);
    try {
      const templates = (await plain.call('vm_list_templates')).structuredContent.templates;
      assert.equal(templates.find((t: any) => t.id === 'macos-standin'), undefined);
      assert.equal(errorCode(await plain.call('vm_lease_create', { template: 'macos-standin', ttl_seconds: 60 })), 'NOT_FOUND');
    } finally {
      await plain.close();
    }
  });

  it('with VMHUB_STANDIN_TEMPLATES=1: listed as a stand-in for macOS, leased, ready; screenshot over VNC', async () => {
    s = await connect(box, { VMHUB_STANDIN_TEMPLATES: '1' });
    const t = (await s.call('vm_list_templates')).structuredContent.templates.find((x: any) => x.id === 'macos-standin');
    assert.ok(t, 'macos-standin is listed');
    assert.deepEqual([t.adapter, t.os, t.availability], ['macos', 'macos', 'available'], `macos-standin: ${t.reason ?? ''} (build it: vmhub-server golden build macos-standin)`);
    assert.match(t.description, /Stand-in for macOS.*003\.889.*ARD.*not macOS/);
    const created = await s.call('vm_lease_create', { template: 'macos-standin', ttl_seconds: 600 });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    lease = created.structuredContent.lease_id;
    const ready = await waitReady(s, lease, 120);
    assert.equal(ready.status, 'ready', JSON.stringify(ready));
    assert.deepEqual(ready.stages.map((x: any) => x.name).slice(-3), ['sshd', 'display', 'vnc']);
    const shot = await s.call('vm_screenshot', { lease_id: lease });
    assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
    assert.deepEqual(shot.structuredContent.screen, { width: 1280, height: 800 });
  });

  it('typed text (shifted symbols, Unicode) arrives in a file in the guest; keys too', async () => {
    const w = await sink('vmhub-type-sink', '/tmp/typed.txt', '100x20+0+0');
    await s.call('vm_focus', { lease_id: lease, window: w.id });
    const text = 'Hello, Mac! ~!@#$%^&*()_+ ünï ✓ Привет 粘贴';
    const typed = await s.call('vm_type', { lease_id: lease, text: `${text}\n` });
    assert.equal(typed.isError, undefined, JSON.stringify(typed.structuredContent));
    await s.call('vm_key', { lease_id: lease, keys: 'shift+z Return' });
    assert.equal(await guestText('/tmp/typed.txt', (x) => x.endsWith('Z\n')), `${text}\nZ\n`);
  });

  it('a click lands: the window clicked takes the focus', async () => {
    const target = await sink('vmhub-click-target', '/tmp/unused.txt', '40x10+800+450');
    const other = await sink('vmhub-click-other', '/tmp/unused2.txt', '40x10+100+450');
    assert.equal((await windows()).find((x) => x.id === other.id)?.focused, true);
    const listed = (await windows()).find((x) => x.id === target.id);
    const click = await s.call('vm_click', { lease_id: lease, x: listed.x + Math.floor(listed.width / 2), y: listed.y + Math.floor(listed.height / 2), coordinate_space: 'screen' });
    assert.equal(click.isError, undefined, JSON.stringify(click.structuredContent));
    let focused = false;
    for (let i = 0; i < 20 && !focused; i++) { focused = (await windows()).find((x) => x.id === target.id)?.focused === true; if (!focused) await sleep(200); }
    assert.ok(focused, 'the clicked window is focused');
    const closed = await s.call('vm_close', { lease_id: lease, window: other.id });
    assert.equal(closed.isError, undefined, JSON.stringify(closed.structuredContent));
  });

  it('exec over SSH: exit code, stdout and stderr apart; put/get file byte-exact; clone', async () => {
    const r = await s.call('vm_exec', { lease_id: lease, command: ['sh', '-c', 'echo out; echo err >&2; whoami; exit 3'] });
    assert.deepEqual([r.structuredContent.exit_code, r.structuredContent.stdout, r.structuredContent.stderr], [3, 'out\nuser\n', 'err\n']);
    const data = randomBytes(70_000);
    const put = await s.call('vm_put_file', { lease_id: lease, path: '/tmp/blob.bin', content_base64: data.toString('base64') });
    assert.equal(put.isError, undefined, JSON.stringify(put.structuredContent));
    const got = await s.call('vm_get_file', { lease_id: lease, path: '/tmp/blob.bin' });
    assert.ok(Buffer.from(got.structuredContent.content_base64, 'base64').equals(data), 'the file reads back byte-exact');
    assert.equal(errorCode(await s.call('vm_get_file', { lease_id: lease, path: '/tmp/no-such-file' })), 'NOT_FOUND');
    const cloned = await s.call('vm_clone_repo', { lease_id: lease, url: `git://127.0.0.1:${gitPort}/repo.git`, dest: '/home/user/src/repo' });
    assert.equal(cloned.isError, undefined, JSON.stringify(cloned.structuredContent));
    assert.equal((await s.call('vm_get_file', { lease_id: lease, path: '/home/user/src/repo/README.md' })).structuredContent.content, 'cloned onto the stand-in Mac\n');
    const head = await s.call('vm_exec', { lease_id: lease, command: ['ls', '/home/user/src/repo/.git/HEAD'] });
    assert.equal(head.structuredContent.exit_code, 0, '.git came along');
  });

  it('release removes the container', async () => {
    const name = `vmhub-${instance}-${lease}`;
    assert.ok(await docker('inspect', name));
    const r = await s.call('vm_lease_release', { lease_id: lease });
    assert.equal(r.structuredContent.status, 'released');
    await assert.rejects(docker('inspect', name), 'the container is gone from the engine');
    lease = '';
  });
});
