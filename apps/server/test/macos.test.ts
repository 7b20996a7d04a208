// macOS through the built server and the SDK client, on the macos-standin golden (a container
// with sshd and x11vnc behind an RFB front announcing 003.889 with ARD auth — NOT macOS): the
// template is listed only with VMHUB_STANDIN_TEMPLATES=1; the macos adapter drives it over VNC
// and SSH through provider-docker's guest ports. Effects are checked in the guest.
// Needs the golden (`vmhub-server golden build macos-standin`).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { sleep } from '@vmhub/test-kit';
import { serveGitRepo, type ServedRepo } from './git-repo.ts';
import { connect, errorCode, guestText as guestTextOf, leaseReady, machineBox, type Session } from './harness.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args).then((r) => r.stdout.trim());

const box = machineBox('macos', 'mac');
const { instance } = box;
let s: Session;
let lease = '';
let repo: ServedRepo | undefined;

const guestText = (path: string, want: (t: string) => boolean) => guestTextOf(s, lease, path, want);

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
  repo = await serveGitRepo(box.dir, { 'README.md': 'cloned onto the stand-in Mac\n' });
  box.write({ clone: { allowed_schemes: ['git'], allow_private_hosts: true } });
});
after(async () => {
  repo?.stop();
  await box.end(s, [lease]);
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
    const ready = await leaseReady(s, { template: 'macos-standin', ttl_seconds: 600 }, 120, (id) => { lease = id; });
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
    const cloned = await s.call('vm_clone_repo', { lease_id: lease, url: repo!.url, dest: '/home/user/src/repo' });
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
