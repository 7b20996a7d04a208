/**
 * Failure paths on a real qemu: a golden qemu cannot boot fails create with qemu's own words; a
 * guest that never shows its marker fails ready with BOOT_TIMEOUT naming the stage. Both leave
 * nothing running after destroy.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Provider, TemplateConfig } from '@vmhub/core';
import plugin from '../src/index.ts';
import { testContext, testPrefix, tinyConsoleSetup } from './helpers.ts';

describe('qemu: failures', { timeout: 120_000 }, () => {
  const prefix = testPrefix();
  let root: string;
  let template: TemplateConfig;
  let provider: Provider;

  before(async () => {
    const setup = await tinyConsoleSetup();
    root = setup.root;
    template = setup.template;
    provider = plugin.create({ state_dir: join(root, 'state') }, testContext(prefix));
  });
  after(async () => {
    for (const m of await provider.list()) await provider.destroy(m);
    await provider.close?.();
    await rm(root, { recursive: true, force: true });
  });

  test('a golden qemu cannot boot: PROVISION_FAILED with qemu.log, nothing left running', async () => {
    const bogus = join(root, 'not-a-kernel');
    await writeFile(bogus, 'this is not a kernel\n');
    const identity = `${prefix}${randomUUID()}`;
    const t = { ...template, golden: bogus };
    // qemu may die before create() returns (caught there) or just after (caught by ready()).
    const failed = (e: { code?: string; message: string }) => e.code === 'PROVISION_FAILED' && /kernel/i.test(e.message);
    try {
      const m = await provider.create({ lease_id: identity.slice(prefix.length), identity, template: t, signal: AbortSignal.timeout(30_000) });
      await assert.rejects(provider.ready(m, { template: t, signal: AbortSignal.timeout(30_000), stage: () => {} }), failed);
    } catch (err) {
      assert.ok(failed(err as { code?: string; message: string }), String(err));
    }
    assert.equal(await provider.destroy({ identity, external_id: join(root, 'state', identity) }), 'already_gone');
    assert.ok(!existsSync(join(root, 'state', identity)), 'no state directory left behind');
  });

  test('a marker that never comes: BOOT_TIMEOUT at stage guest, then destroyed', async () => {
    const identity = `${prefix}${randomUUID()}`;
    const t: TemplateConfig = { ...template, ready_timeout_seconds: 2, provider_options: { ...template.provider_options, ready_marker: 'NEVER-PRINTED-MARKER' } };
    const m = await provider.create({ lease_id: identity.slice(prefix.length), identity, template: t, signal: AbortSignal.timeout(30_000) });
    const stages: string[] = [];
    await assert.rejects(
      provider.ready(m, { template: t, signal: AbortSignal.timeout(30_000), stage: (n, s) => { stages.push(`${n}:${s}`); } }),
      (e: { code?: string; message: string }) => e.code === 'BOOT_TIMEOUT' && /stage "guest"/.test(e.message),
    );
    assert.equal(stages.at(-1), 'guest:failed');
    assert.equal(await provider.destroy(m), 'destroyed');
  });
});
