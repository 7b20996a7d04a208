// The first real vertical slice, through the built server and the SDK client: a Linux desktop in
// a real Docker container (the debian-x11 golden), driven by the X11 adapter. Effects are
// verified inside the guest (files written by programs in the X session, window geometry), and
// teardown on the engine itself.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { after, before, describe, it } from 'node:test';
import { sleep } from '@vmhub/test-kit';
import { serveGitRepo, type ServedRepo } from './git-repo.ts';
import { connect, errorCode, guestText, leaseReady, machineBox, type Session } from './harness.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args).then((r) => r.stdout.trim());

const box = machineBox('dx11', 'dx');
const { dir, instance } = box;
let s: Session;
let lease = '';
let repo: ServedRepo | undefined;
let tagCommit = '';

/** main (tagged v1.0) with README.md, and a branch `feature` that adds FEATURE.txt. */
const makeRepo = async () => serveGitRepo(dir, { 'README.md': 'main branch\n' }, async ({ git, commit }) => {
  await git('tag', 'v1.0');
  tagCommit = (await git('rev-parse', 'HEAD')).trim();
  await git('checkout', '-qb', 'feature');
  await commit({ 'FEATURE.txt': 'feature branch\n' }, 'feature');
  await git('checkout', '-q', 'main');
});

async function windows(): Promise<any[]> {
  return (await s.call('vm_list_windows', { lease_id: lease })).structuredContent.windows;
}

const readGuest = (path: string, want: (t: string) => boolean) => guestText(s, lease, path, want);

/** An xterm whose shell reads one line into a file: what vm_type delivers is what lands there. */
async function lineReader(file: string, extraArgs: string[] = []): Promise<any> {
  const r = await s.call('vm_launch', { lease_id: lease, app: 'xterm', args: [...extraArgs, '-e', 'sh', '-c', `IFS= read -r line; printf '%s' "$line" > ${file}; sleep 30`], wait_seconds: 10 });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  assert.ok(r.structuredContent.window, 'vm_launch reports the new window');
  await s.call('vm_focus', { lease_id: lease, window: r.structuredContent.window.id });
  await sleep(300);
  return r.structuredContent.window;
}

before(async () => {
  repo = await makeRepo();
  box.write({ clone: { allowed_schemes: ['git', 'https'], allow_private_hosts: true } });
  s = await connect(box, { VMHUB_SCREENSHOT_DIR: join(dir, 'shots') });
});
after(async () => {
  repo?.stop();
  await box.end(s, [lease]);
});

describe('docker + x11: an agent drives a real Linux desktop', () => {
  it('the session: lease → ready → screenshot saved', async () => {
    const templates = (await s.call('vm_list_templates')).structuredContent.templates;
    const t = templates.find((x: any) => x.id === 'debian-x11');
    assert.equal(t.availability, 'available', `debian-x11: ${t.reason}`);
    const ready = await leaseReady(s, { template: 'debian-x11', ttl_seconds: 900 }, 90, (id) => { lease = id; });
    assert.deepEqual(ready.stages.map((x: any) => x.name).slice(-3), ['container', 'display', 'desktop']);
    const inspect = JSON.parse(await docker('inspect', `vmhub-${instance}-${lease}`))[0];
    assert.equal(inspect.Config.Labels['vmhub.identity'], `vmhub-${instance}-${lease}`);
    assert.equal(inspect.HostConfig.NetworkMode, 'none', 'networking off by default');
    assert.deepEqual(inspect.HostConfig.PortBindings ?? {}, {}, 'no published ports');

    const shot = await s.call('vm_screenshot', { lease_id: lease });
    assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
    assert.deepEqual(shot.structuredContent.screen, { width: 1280, height: 800 });
    assert.ok(shot.structuredContent.file?.endsWith('.png'));
  });

  it('typed Unicode text arrives byte-exact in a file in the guest', async () => {
    const text = 'héllo ✓ Привет 粘贴';
    await lineReader('/tmp/typed-unicode.txt');
    await s.call('vm_type', { lease_id: lease, text: `${text}\n` });
    assert.equal(await readGuest('/tmp/typed-unicode.txt', (t) => t.length > 0), text);
  });

  it('shell metacharacters are typed literally and nothing is executed', async () => {
    const text = `'";|&$()\\\` %s $(touch /tmp/pwned) \`touch /tmp/pwned2\``;
    await lineReader('/tmp/typed-meta.txt');
    await s.call('vm_type', { lease_id: lease, text: `${text}\n` });
    assert.equal(await readGuest('/tmp/typed-meta.txt', (t) => t.length > 0), text);
    const pwned = await s.call('vm_exec', { lease_id: lease, command: ['ls', '/tmp/pwned', '/tmp/pwned2'] });
    assert.notEqual(pwned.structuredContent.exit_code, 0, 'no file was created by the typed text');
  });

  it('a key chord has its effect (ctrl+u erases the typed line)', async () => {
    await lineReader('/tmp/typed-chord.txt');
    await s.call('vm_type', { lease_id: lease, text: 'discard me' });
    await s.call('vm_key', { lease_id: lease, keys: 'ctrl+u' });
    await s.call('vm_type', { lease_id: lease, text: 'kept' });
    await s.call('vm_key', { lease_id: lease, keys: 'Return' });
    assert.equal(await readGuest('/tmp/typed-chord.txt', (t) => t.length > 0), 'kept');
  });

  it('paste delivers any Unicode and restores the previous clipboard', async () => {
    await s.call('vm_dispatch', { lease_id: lease, verb: 'set_clipboard', args: { text: 'previous clipboard' } });
    await lineReader('/tmp/pasted.txt');
    await s.call('vm_paste', { lease_id: lease, text: 'pasted ✓ 粘贴 text' });
    await s.call('vm_key', { lease_id: lease, keys: 'Return' });
    assert.equal(await readGuest('/tmp/pasted.txt', (t) => t.length > 0), 'pasted ✓ 粘贴 text');
    const clip = await s.call('vm_dispatch', { lease_id: lease, verb: 'get_clipboard', args: {} });
    assert.equal(clip.structuredContent.result.text ?? clip.structuredContent.result, 'previous clipboard');
  });

  it('list, focus and close are seen in the window list; drag moves a window', async () => {
    const w = await lineReader('/tmp/unused.txt', ['-T', 'vmhub-drag-me', '-geometry', '60x10+100+100']);
    let listed = (await windows()).find((x) => x.id === w.id);
    assert.ok(listed, 'the launched window is listed');
    assert.equal(listed.title, 'vmhub-drag-me');
    assert.equal(listed.focused, true);
    const before = { x: listed.x, y: listed.y };
    // openbox moves a window on alt+drag anywhere inside it
    await s.call('vm_key', { lease_id: lease, keys: 'Escape' });
    const from = { x: listed.x + 40, y: listed.y + 40 };
    await s.call('vm_drag', { lease_id: lease, from, to: { x: from.x + 150, y: from.y + 100 }, coordinate_space: 'screen' });
    await sleep(300);
    listed = (await windows()).find((x) => x.id === w.id);
    if (listed.x === before.x && listed.y === before.y) {
      // some window managers only move by the title bar: drag it by its decoration
      await s.call('vm_drag', { lease_id: lease, from: { x: before.x + 40, y: Math.max(0, before.y - 10) }, to: { x: before.x + 190, y: before.y + 90 }, coordinate_space: 'screen' });
      await sleep(300);
      listed = (await windows()).find((x) => x.id === w.id);
    }
    assert.ok(listed.x !== before.x || listed.y !== before.y, `window moved from ${JSON.stringify(before)} to ${listed.x},${listed.y}`);

    const other = await lineReader('/tmp/unused2.txt', ['-T', 'vmhub-other']);
    assert.equal((await windows()).find((x) => x.id === other.id).focused, true);
    await s.call('vm_focus', { lease_id: lease, window: 'vmhub-drag-me' });
    assert.equal((await windows()).find((x) => x.id === w.id).focused, true, 'focus by title');
    const closed = await s.call('vm_close', { lease_id: lease, window: w.id });
    assert.equal(closed.structuredContent.closed, true);
    await sleep(800);
    assert.equal((await windows()).find((x) => x.id === w.id), undefined, 'closed window gone from the list');
    const missing = await s.call('vm_focus', { lease_id: lease, window: 'no-such-window-title' });
    assert.equal(errorCode(missing), 'NOT_FOUND');
  });

  it('a click at image coordinates of a downscaled screenshot lands on the intended window', async () => {
    const left = await lineReader('/tmp/click-left.txt', ['-T', 'vmhub-left', '-geometry', '40x10+20+300']);
    const right = await lineReader('/tmp/click-right.txt', ['-T', 'vmhub-right', '-geometry', '40x10+700+300']);
    const wins = await windows();
    const target = wins.find((x) => x.id === left.id);
    assert.equal(wins.find((x) => x.id === right.id).focused, true);
    const shot = await s.call('vm_screenshot', { lease_id: lease, max_width: 640, max_height: 400, format: 'jpeg' });
    assert.equal(shot.structuredContent.scale, 0.5);
    const image = shot.content.find((c: any) => c.type === 'image') as any;
    assert.equal(image.mimeType, 'image/jpeg');
    const pixels = await sharp(Buffer.from(image.data, 'base64')).stats();
    assert.ok(pixels.channels.some((c) => c.stdev > 10), 'the screenshot is not blank (windows and text on it)');
    const meta = await sharp(Buffer.from(image.data, 'base64')).metadata();
    assert.deepEqual([meta.width, meta.height], [640, 400], 'image dimensions match the reported scale');
    // centre of the left window, in image pixels
    const ix = Math.round((target.x + target.width / 2) * 0.5);
    const iy = Math.round((target.y + target.height / 2) * 0.5);
    const click = await s.call('vm_click', { lease_id: lease, x: ix, y: iy });
    assert.equal(click.isError, undefined, JSON.stringify(click.structuredContent));
    await sleep(300);
    assert.equal((await windows()).find((x) => x.id === left.id).focused, true, 'the click focused the left window');
    await s.call('vm_type', { lease_id: lease, text: 'clicked\n' });
    assert.equal(await readGuest('/tmp/click-left.txt', (t) => t.length > 0), 'clicked');
  });

  it('scroll changes what the terminal shows', async () => {
    const r = await s.call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-T', 'vmhub-scroll', '-geometry', '80x20+300+100', '-e', 'sh', '-c', 'seq 1 400; sleep 60'], wait_seconds: 10 });
    const w = r.structuredContent.window;
    await sleep(800);
    const region = { x: w.x, y: w.y, width: w.width, height: w.height };
    const before = await s.call('vm_screenshot', { lease_id: lease, region, format: 'png' });
    await s.call('vm_scroll', { lease_id: lease, x: w.x + 50, y: w.y + 50, direction: 'up', amount: 10, coordinate_space: 'screen' });
    await sleep(400);
    const afterShot = await s.call('vm_screenshot', { lease_id: lease, region, format: 'png' });
    const hash = (x: any) => createHash('sha256').update(x.content.find((c: any) => c.type === 'image').data).digest('hex');
    assert.notEqual(hash(before), hash(afterShot), 'the scrolled terminal shows other lines');
  });

  it('put/get of a 5 MB binary file is byte-exact', async () => {
    const data = randomBytes(5 * 1024 * 1024);
    const put = await s.call('vm_put_file', { lease_id: lease, path: 'blob.bin', content_base64: data.toString('base64') });
    assert.equal(put.isError, undefined, JSON.stringify(put.structuredContent));
    assert.equal(put.structuredContent.size, data.length);
    // 5 MB of base64 is over the 4 MiB result budget: one read answers RESULT_TOO_LARGE with the
    // call to continue, and reading in parts gives the bytes back exactly.
    const whole = await s.call('vm_get_file', { lease_id: lease, path: 'blob.bin' });
    assert.equal(errorCode(whole), 'RESULT_TOO_LARGE');
    const length = Number(/length: (\d+)/.exec(whole.structuredContent.hint)![1]);
    const parts: Buffer[] = [];
    for (let offset = 0, eof = false; !eof;) {
      const got = await s.call('vm_get_file', { lease_id: lease, path: 'blob.bin', offset, length });
      assert.equal(got.isError, undefined, JSON.stringify(got.structuredContent).slice(0, 300));
      assert.equal(got.structuredContent.sha256, createHash('sha256').update(data).digest('hex'));
      parts.push(Buffer.from(got.structuredContent.content_base64, 'base64'));
      offset += got.structuredContent.length;
      eof = got.structuredContent.eof;
    }
    assert.ok(Buffer.concat(parts).equals(data));
    const inGuest = await s.call('vm_exec', { lease_id: lease, command: ['sha256sum', '/home/user/blob.bin'] });
    assert.ok(inGuest.structuredContent.stdout.startsWith(put.structuredContent.sha256), 'the guest sees the same bytes');
  });

  it('exec reports exit code, stderr and timeouts', async () => {
    const ok = await s.call('vm_exec', { lease_id: lease, command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
    assert.deepEqual([ok.structuredContent.exit_code, ok.structuredContent.stdout, ok.structuredContent.stderr, ok.structuredContent.timed_out], [3, 'out\n', 'err\n', false]);
    const who = await s.call('vm_exec', { lease_id: lease, shell: 'id -un; pwd' });
    assert.equal(who.structuredContent.stdout, 'user\n/home/user\n');
    const stdin = await s.call('vm_exec', { lease_id: lease, command: ['cat'], stdin: 'from stdin ✓' });
    assert.equal(stdin.structuredContent.stdout, 'from stdin ✓');
    const started = Date.now();
    const slow = await s.call('vm_exec', { lease_id: lease, command: ['sleep', '30'], timeout_seconds: 1 });
    assert.equal(slow.structuredContent.timed_out, true);
    assert.equal(slow.structuredContent.exit_code, null);
    assert.ok(Date.now() - started < 10_000);
  });

  it('a vm_exec the client cancels is killed in the guest, and the lease keeps serving', async () => {
    const pidFile = `/tmp/cancel-${randomBytes(4).toString("hex")}.pid`;
    const ctl = new AbortController();
    const call = s.client.callTool({ name: 'vm_exec', arguments: { lease_id: lease, command: ['sh', '-c', `echo $$ > ${pidFile}; exec sleep 300`], timeout_seconds: 600 } }, undefined, { signal: ctl.signal });
    const pid = await readGuest(pidFile, (t) => /^\d+\n$/.test(t));
    assert.match(pid, /^\d+\n$/, 'the command started');
    ctl.abort();
    await assert.rejects(call, 'the SDK client rejects the cancelled call (and tells the server)');
    // The server kills it: the pid disappears from the guest within seconds, not after 300 s.
    let alive = true;
    for (const deadline = Date.now() + 10_000; alive && Date.now() < deadline;) {
      const probe = await s.call('vm_exec', { lease_id: lease, command: ['kill', '-0', pid.trim()] });
      alive = probe.structuredContent.exit_code === 0;
      if (alive) await sleep(200);
    }
    assert.equal(alive, false, `sleep 300 (pid ${pid.trim()}) still runs in the guest after the call was cancelled`);
    const after = await s.call('vm_exec', { lease_id: lease, command: ['echo', 'still serving'] });
    assert.equal(after.structuredContent.stdout, 'still serving\n');
  });

  it('clones a repository served on loopback, by branch and by tag, with .git', async () => {
    const url = repo!.url;
    const branch = await s.call('vm_clone_repo', { lease_id: lease, url, ref: 'feature', dest: 'src/feature' });
    assert.equal(branch.isError, undefined, JSON.stringify(branch.structuredContent));
    const feature = await s.call('vm_get_file', { lease_id: lease, path: 'src/feature/FEATURE.txt' });
    assert.equal(feature.structuredContent.content, 'feature branch\n');
    const tag = await s.call('vm_clone_repo', { lease_id: lease, url, ref: 'v1.0', depth: 1, dest: 'src/tagged' });
    assert.equal(tag.structuredContent.commit, tagCommit);
    const head = await s.call('vm_exec', { lease_id: lease, command: ['git', '-C', '/home/user/src/tagged', 'rev-parse', 'HEAD'] });
    assert.equal(head.structuredContent.stdout.trim(), tagCommit, '.git came along');
    const missingFeature = await s.call('vm_get_file', { lease_id: lease, path: 'src/tagged/FEATURE.txt' });
    assert.equal(errorCode(missingFeature), 'NOT_FOUND');
    const badRef = await s.call('vm_clone_repo', { lease_id: lease, url, ref: 'no-such-branch' });
    assert.ok(['NOT_FOUND', 'INVALID_REQUEST'].includes(errorCode(badRef)!));
  });

  it('bad input is refused with typed errors', async () => {
    assert.equal(errorCode(await s.call('vm_click', { lease_id: lease, x: 1280, y: 10, coordinate_space: 'screen' })), 'INVALID_REQUEST');
    assert.equal(errorCode(await s.call('vm_key', { lease_id: lease, keys: 'ctrl+notakey' })), 'INVALID_REQUEST');
    assert.equal(errorCode(await s.call('vm_key', { lease_id: lease, keys: 'ctrl+shift+' })), 'INVALID_REQUEST');
    assert.equal(errorCode(await s.call('vm_get_file', { lease_id: lease, path: '/no/such/file' })), 'NOT_FOUND');
    assert.equal(errorCode(await s.call('vm_get_file', { lease_id: lease, path: 'blob.bin', max_bytes: 1000 })), 'INVALID_REQUEST');
    const big = await s.call('vm_put_file', { lease_id: lease, path: 'too-big.bin', content_base64: randomBytes(33 * 1024 * 1024).toString('base64') });
    assert.equal(errorCode(big), 'INVALID_REQUEST');
  });

  it('release removes the container (identity checked); a look-alike is never touched', async () => {
    const name = `vmhub-${instance}-${lease}`;
    const image = JSON.parse(await docker('inspect', name))[0].Config.Image;
    const decoy = `${name}-lookalike`;
    await docker('create', '--name', decoy, '--network', 'none', image, 'sleep', '600');
    const r = await s.call('vm_lease_release', { lease_id: lease });
    assert.equal(r.structuredContent.status, 'released');
    await assert.rejects(docker('inspect', name), 'the container is gone from the engine');
    assert.ok(await docker('inspect', decoy), 'the look-alike without identity labels is still there');
    await docker('rm', '-f', decoy);
    lease = '';
  });
});
