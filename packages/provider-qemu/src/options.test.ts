import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateLeaseKeyPair } from '@vmhub/core';
import plugin from './index.ts';
import { templateOptions } from './options.ts';
import { createRuntime } from './qemu-runtime.ts';

const ctx = { identityPrefix: 'vmhub-opt-', log: () => {} };

test('qemu options: snake_case keys reach the runtime; unset ones fall back to env, then defaults', () => {
  const rt = createRuntime({ state_dir: '/srv/q', qemu_binary: '/opt/qemu', qemu_img: '/opt/qemu-img', accel: 'tcg', machine: 'pc', default_memory_mb: 256, qmp_timeout_ms: 700, stop_timeout_ms: 900 }, ctx);
  assert.deepEqual(
    { stateDir: rt.stateDir, binary: rt.binary, qemuImg: rt.qemuImg, accel: rt.wantedAccel, machine: rt.machine, mem: rt.defaultMemoryMb, qmp: rt.qmpTimeoutMs, stop: rt.stopTimeoutMs },
    { stateDir: '/srv/q', binary: '/opt/qemu', qemuImg: '/opt/qemu-img', accel: 'tcg', machine: 'pc', mem: 256, qmp: 700, stop: 900 },
  );
  const saved = process.env.VMHUB_QEMU_STATE_DIR;
  process.env.VMHUB_QEMU_STATE_DIR = '/srv/from-env';
  try {
    assert.equal(createRuntime({}, ctx).stateDir, '/srv/from-env');
    assert.equal(createRuntime({ state_dir: '/srv/explicit' }, ctx).stateDir, '/srv/explicit', 'an explicit option beats the env var');
  } finally {
    if (saved === undefined) delete process.env.VMHUB_QEMU_STATE_DIR; else process.env.VMHUB_QEMU_STATE_DIR = saved;
  }
  const d = createRuntime({}, ctx);
  assert.deepEqual([d.defaultMemoryMb, d.qmpTimeoutMs, d.stopTimeoutMs, d.machine], [512, 10_000, 5_000, 'q35']);
});

test('qemu options: lease SSH keys go under the instance state directory when the host gives one, else under state_dir', async () => {
  const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-keys-'));
  try {
    const k = generateLeaseKeyPair('x');
    createRuntime({ state_dir: join(root, 'q') }, { ...ctx, stateDir: join(root, 'instance') }).secrets.put('vmhub-opt-1', k);
    createRuntime({ state_dir: join(root, 'q') }, ctx).secrets.put('vmhub-opt-2', k);
    assert.ok(existsSync(join(root, 'instance', 'provider-qemu', 'keys', 'vmhub-opt-1.json')));
    assert.ok(existsSync(join(root, 'q', 'provider-qemu', 'keys', 'vmhub-opt-2.json')));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('qemu options: a pre-0.1 camelCase key is refused, naming it', () => {
  for (const old of ['stateDir', 'qemuBinary', 'qemuImg', 'defaultMemoryMb', 'qmpTimeoutMs', 'stopTimeoutMs']) {
    assert.throws(() => plugin.create({ [old]: old.endsWith('Ms') || old.endsWith('Mb') ? 1000 : '/x' } as never, ctx),
      (e: { code?: string; message: string }) => e.code === 'INVALID_REQUEST' && e.message.includes(`unknown field "${old}"`), old);
  }
  assert.doesNotThrow(() => plugin.create({ state_dir: '/tmp/vmhub-none', qmp_timeout_ms: 1000 }, ctx));
});

test('qemu template options: core checks provider_options against the schema, naming the key', () => {
  const base = { id: 'tq', provider: 'qemu', adapter: 'console', os: 'linux', golden: '/g/vmlinuz' };
  assert.doesNotThrow(() => plugin.checkTemplate({ ...base, provider_options: { kernel: '/k', initrd: '/i', append: 'quiet', ready_marker: 'UP', network: true, guest_agent: true, build_hint: 'make it' } }));
  assert.doesNotThrow(() => plugin.checkTemplate(base), 'provider_options may be absent');
  const refused = (provider_options: Record<string, unknown>, pattern: RegExp) => assert.throws(() => plugin.checkTemplate({ ...base, provider_options }),
    (e: { code?: string; message: string; hint?: string }) => e.code === 'INVALID_REQUEST' && pattern.test(e.message) && /templates\["tq"\]\.provider_options/.test(e.hint ?? ''), JSON.stringify(provider_options));
  refused({ guest_agnet: true }, /guest_agnet/);
  refused({ network: 'yes' }, /network/);
  refused({ kernel: '' }, /kernel/);
  assert.deepEqual(templateOptions(undefined), { network: false, guest_agent: false }, 'booleans default to false');
});
