import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import plugin, { tinyConsoleSshTemplate, tinyConsoleTemplate } from '../src/index.ts';
import { testContext, testPrefix } from './helpers.ts';

test('qemu: a missing golden is unavailable with the exact build command', async () => {
  const p = plugin.create({ state_dir: '/tmp/vmhub-none' }, testContext(testPrefix()));
  const r = await p.availability(tinyConsoleTemplate('/nonexistent/golden'));
  assert.equal(r.availability, 'unavailable');
  assert.match(r.reason!, /vmhub-server golden build tiny-console/);
  assert.doesNotMatch(r.reason!, /packages\/|build\.mjs/, 'the hint names a command an installed vmhub has, not a path of the repository');
  const rel = await p.availability({ ...tinyConsoleTemplate(), golden: 'relative.qcow2' });
  assert.match(rel.reason!, /absolute path/);
  await assert.rejects(p.create({ lease_id: 'x', identity: 'vmhub-a-x', template: tinyConsoleTemplate('/nonexistent'), signal: AbortSignal.timeout(5000) }), (e: { code?: string }) => e.code === 'PROVISION_FAILED');
});

test('qemu: the plugin ships the tiny-console template and validates options', () => {
  assert.equal(plugin.id, 'qemu');
  const t = plugin.templates.find((x) => x.id === 'tiny-console')!;
  assert.equal(t.provider, 'qemu');
  assert.equal(t.adapter, 'console');
  assert.match(t.golden, /tiny-console\/vmlinuz$/);
  assert.throws(() => plugin.create({ accel: 'xen' } as never, testContext('vmhub-a-')), /accel/);
});

test('qemu: a create that fails before qemu runs leaves no state directory behind', async () => {
  const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-fail-'));
  try {
    const kernel = join(root, 'vmlinuz');
    await writeFile(kernel, 'not a kernel\n');
    const stateDir = join(root, 'state');
    const p = plugin.create({ state_dir: stateDir, qemu_binary: join(root, 'no-such-qemu'), accel: 'tcg' }, testContext(testPrefix()));
    const identity = `vmhub-a-${randomUUID()}`;
    const template = { ...tinyConsoleTemplate(root), golden: kernel, provider_options: {} };
    await assert.rejects(p.create({ lease_id: 'x', identity, template, signal: AbortSignal.timeout(5000) }), (e: { code?: string; message: string }) => e.code === 'PROVISION_FAILED' && /cannot start/.test(e.message));
    assert.ok(!existsSync(join(stateDir, identity)), 'state directory removed');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('qemu: forward_ports (TCP on 127.0.0.1, reachable by every local user) need the template\'s forward_tcp: true', async () => {
  const p = plugin.create({ state_dir: '/tmp/vmhub-none' }, testContext(testPrefix()));
  const forwarding = { ...tinyConsoleTemplate(), provider_options: { ...tinyConsoleTemplate().provider_options, forward_ports: [5555] } };
  const r = await p.availability(forwarding);
  assert.equal(r.availability, 'unavailable');
  assert.match(r.reason!, /forward_tcp.*true/);
  assert.match(r.reason!, /every local user/);
  await assert.rejects(p.create({ lease_id: 'x', identity: `vmhub-a-${randomUUID()}`, template: forwarding, signal: AbortSignal.timeout(5000) }), (e: { code?: string; message: string }) => e.code === 'CAPABILITY_UNAVAILABLE' && /forward_tcp/.test(e.message));
  const accepted = await p.availability({ ...forwarding, forward_tcp: true });
  assert.doesNotMatch(accepted.reason ?? '', /forward_tcp/, 'with forward_tcp: true the forwards are accepted');
});

test('qemu: an ssh template needs forward_tcp and genisoimage; a create whose seed cannot be written leaves no key and no state directory', async () => {
  const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-ssh-fail-'));
  const path = process.env.PATH;
  try {
    const kernel = join(root, 'vmlinuz');
    await writeFile(kernel, 'not a kernel\n');
    const stateDir = join(root, 'state');
    const p = plugin.create({ state_dir: stateDir, qemu_binary: '/usr/bin/qemu-system-x86_64', accel: 'tcg' }, testContext(testPrefix()));
    const ssh = { ...tinyConsoleSshTemplate(root), golden: kernel, provider_options: { ssh: { user: 'user' } } };
    assert.match((await p.availability({ ...ssh, forward_tcp: false })).reason ?? '', /forwards guest ports 22: .*forward_tcp/);
    assert.equal((await p.availability(ssh)).availability, 'available');
    process.env.PATH = join(root, 'empty-path');
    const r = await p.availability(ssh);
    assert.equal(r.availability, 'unavailable');
    assert.match(r.reason!, /genisoimage not found .*apt-get install -y genisoimage/);
    const identity = `vmhub-a-${randomUUID()}`;
    await assert.rejects(p.create({ lease_id: 'x', identity, template: ssh, signal: AbortSignal.timeout(5000) }), (e: { code?: string; message: string }) => e.code === 'PROVISION_FAILED' && /NoCloud seed/.test(e.message) && /genisoimage/.test(e.message));
    assert.ok(!existsSync(join(stateDir, identity)), 'state directory removed');
    assert.ok(!existsSync(join(stateDir, 'provider-qemu', 'keys', `${identity}.json`)), 'the key is dropped with the failed create');
  } finally {
    process.env.PATH = path;
    await rm(root, { recursive: true, force: true });
  }
});
