/**
 * The framebuffer shared with the host (docker-framebuffer.ts) on real debian-x11 containers:
 * each container gets its own tmpfs directory, Xvfb keeps its screen there as an XWD file the
 * host reads, destroy removes the directory; off (framebuffer: false) or with a remote engine
 * there is none, and the container is not told of one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { machineIdentity, type MachineRef } from '@vmhub/core';
import { framebufferOf, framebufferRoot, prepareFramebuffer } from '../src/docker-framebuffer.ts';
import { ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

async function guestEnv(provider: ReturnType<typeof makeProvider>['provider'], m: MachineRef): Promise<string> {
  const ch = await provider.channel!(m, template);
  try {
    return (await ch.exec(['env'], { timeoutMs: 10_000 })).stdout.toString('utf8');
  } finally {
    await ch.close();
  }
}

describe('docker: the framebuffer shared with the host (Xvfb -fbdir on a tmpfs)', { timeout: 180_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'vmhub-fbroot-'));
  const made: MachineRef[] = [];
  before(() => ensureGolden());
  after(async () => {
    await removeContainers(...made.map((m) => m.external_id));
    rmSync(root, { recursive: true, force: true });
  });

  it('a container\'s own directory holds its live screen as XWD; destroy removes the directory', async () => {
    // As in the server, which runs under umask 077: the guest's X user must still enter its folder.
    const umask = process.umask(0o077);
    after(() => { process.umask(umask); });
    const { provider, context } = makeProvider({ framebuffer_dir: join(root, 'fb') });
    const lease = randomUUID();
    const m = await provider.create({ lease_id: lease, identity: machineIdentity(context.instance, lease), template, signal: AbortSignal.timeout(60_000) });
    made.push(m);
    await provider.ready(m, { signal: AbortSignal.timeout(60_000), stage: () => undefined, template });
    const fb = await provider.framebuffer!(m, { template });
    assert.ok(fb, 'a framebuffer once the display is up');
    assert.equal(fb.format, 'xwd');
    assert.equal(dirname(dirname(fb.path)), join(root, 'fb', m.identity), 'under the machine\'s own directory');
    assert.equal(statSync(join(root, 'fb')).mode & 0o777, 0o700, 'the root is private to the host user');
    const head = readFileSync(fb.path).subarray(0, 100);
    assert.equal(head.readUInt32BE(4), 7, 'XWD file version 7');
    assert.deepEqual([head.readUInt32BE(16), head.readUInt32BE(20)], [1280, 800], 'the screen\'s size');
    assert.match(await guestEnv(provider, m), /^VMHUB_FBDIR=\/run\/vmhub-fb$/m);
    // The container's /tmp/.X11-unix is the directory's x11/: the X server's socket, on the host.
    assert.equal(fb.x11_socket, join(root, 'fb', m.identity, 'x11', 'X0'));
    assert.ok(statSync(fb.x11_socket).isSocket(), 'the display :0 socket is reachable from the host');
    assert.equal(statSync(dirname(fb.x11_socket)).mode & 0o7777, 0o1777, 'sticky and world-writable, as /tmp/.X11-unix is');
    assert.equal(await provider.destroy(m), 'destroyed');
    assert.equal(existsSync(join(root, 'fb', m.identity)), false, 'the directory went with the container');
    assert.equal(await provider.framebuffer!(m, { template }), undefined);
    await provider.close?.();
  });

  it('off (framebuffer: false): no directory, no VMHUB_FBDIR, no framebuffer', async () => {
    const { provider, context } = makeProvider({ framebuffer: false, framebuffer_dir: join(root, 'off') });
    const lease = randomUUID();
    const m = await provider.create({ lease_id: lease, identity: machineIdentity(context.instance, lease), template, signal: AbortSignal.timeout(60_000) });
    made.push(m);
    await provider.ready(m, { signal: AbortSignal.timeout(60_000), stage: () => undefined, template });
    assert.equal(await provider.framebuffer!(m, { template }), undefined);
    assert.equal(existsSync(join(root, 'off')), false);
    assert.doesNotMatch(await guestEnv(provider, m), /VMHUB_FBDIR/);
    assert.equal(await provider.destroy(m), 'destroyed');
    await provider.close?.();
  });

  it('a filesystem short of space gets no framebuffer (a full tmpfs would SIGBUS the X server), saying so', () => {
    const said: string[] = [];
    assert.equal(prepareFramebuffer(join(root, 'full'), 'vmhub-x-1', (m) => said.push(m), Number.MAX_SAFE_INTEGER), undefined);
    assert.equal(existsSync(join(root, 'full', 'vmhub-x-1')), false);
    assert.match(said[0] ?? '', /no framebuffer for vmhub-x-1: .* MiB free, less than \d+ MiB: screenshots go through the guest/);
    assert.equal(prepareFramebuffer(join(root, 'roomy'), 'vmhub-x-1', (m) => said.push(m), 0), join(root, 'roomy', 'vmhub-x-1'));
    assert.equal(prepareFramebuffer(join(root, 'roomy'), '../escape', (m) => said.push(m), 0), undefined, 'an identity that is not a plain name gets no directory');
  });

  it('a link the guest put in its screen directory is no framebuffer: the host never reads through it', () => {
    const dir = prepareFramebuffer(join(root, 'links'), 'vmhub-x-2', () => undefined, 0)!;
    const machine = { identity: 'vmhub-x-2' } as MachineRef;
    const elsewhere = join(root, 'another-lease-screen');
    writeFileSync(elsewhere, Buffer.alloc(4096, 7));
    symlinkSync(elsewhere, join(dir, 'screen', 'Xvfb_screen0'));
    assert.equal(framebufferOf(join(root, 'links'), machine), undefined);
    rmSync(join(dir, 'screen', 'Xvfb_screen0'));
    writeFileSync(join(dir, 'screen', 'Xvfb_screen0'), Buffer.alloc(4096, 7));
    assert.deepEqual(framebufferOf(join(root, 'links'), machine), { format: 'xwd', path: join(dir, 'screen', 'Xvfb_screen0') }, 'the file itself is');
  });

  it('only for an engine on this host: a tcp:// engine gets none', () => {
    assert.equal(framebufferRoot({ framebuffer: true, docker_host: 'tcp://10.0.0.5:2375' }), undefined);
    assert.equal(framebufferRoot({ framebuffer: true, docker_host: 'unix:///var/run/docker.sock', framebuffer_dir: '/x/fb' }), '/x/fb');
    assert.match(framebufferRoot({ framebuffer: true, docker_host: 'unix:///var/run/docker.sock' }) ?? '', /^\/dev\/shm\/vmhub-fb-\d+$/);
    assert.equal(framebufferRoot({ framebuffer: false, docker_host: 'unix:///var/run/docker.sock' }), undefined);
  });
});
