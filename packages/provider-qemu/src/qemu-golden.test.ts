import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { VmhubError } from '@vmhub/core';
import plugin from './index.ts';
import { qemuGoldens } from './qemu-golden.ts';

test('qemu goldens: names, status and build on the provider spec; up to date is not rebuilt unless forced', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-goldens-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const saved = process.env.XDG_CACHE_HOME;
  // plugin.goldens() builds where the shipped templates look: $XDG_CACHE_HOME/vmhub/golden.
  process.env.XDG_CACHE_HOME = root;
  t.after(() => { if (saved === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = saved; });
  const goldens = plugin.goldens()!;
  assert.deepEqual([...goldens.names], ['tiny-console', 'tiny-console-agent']);

  const before = await goldens.status('tiny-console');
  assert.equal(before.built, false);
  assert.match(before.detail!, /vmhub-server golden build tiny-console/, 'detail says how to build it');

  const lines: string[] = [];
  const first = await goldens.build('tiny-console', { progress: (l) => lines.push(l) });
  assert.deepEqual([first.name, first.built, first.rebuilt], ['tiny-console', true, true]);
  assert.ok(first.ref.startsWith(join(root, 'vmhub', 'golden', 'tiny-console-')), first.ref);
  assert.equal(JSON.parse(await readFile(join(first.ref, 'manifest.json'), 'utf8')).name, 'tiny-console');
  assert.ok(existsSync(join(root, 'vmhub', 'golden', 'tiny-console', 'vmlinuz')), 'the template path resolves through the symlink');
  assert.ok(lines.some((l) => /^building tiny-console/.test(l)), lines.join(' | '));
  assert.deepEqual(await goldens.status('tiny-console'), { name: 'tiny-console', built: true, ref: first.ref });

  lines.length = 0;
  const again = await goldens.build('tiny-console', { progress: (l) => lines.push(l) });
  assert.deepEqual([again.ref, again.rebuilt], [first.ref, false]);
  assert.deepEqual(lines, [], 'nothing built, nothing reported');
  const forced = await goldens.build('tiny-console', { force: true });
  assert.deepEqual([forced.ref, forced.rebuilt], [first.ref, true]);
  assert.equal(readdirSync(join(root, 'vmhub', 'golden')).filter((n) => n.includes('.tmp-')).length, 0, 'no temp dirs left');

  const unknown = (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /unknown golden "nope"; known: tiny-console, tiny-console-agent/.test(e.message);
  await assert.rejects(goldens.status('nope'), unknown);
  await assert.rejects(goldens.build('nope'), unknown);
});

test('qemu goldens: an aborted build stops and leaves nothing current', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-goldens-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const goldens = qemuGoldens({ dir: root });
  const ac = new AbortController();
  ac.abort(new Error('stop'));
  await assert.rejects(goldens.build('tiny-console', { signal: ac.signal }), /stop/);
  assert.deepEqual(readdirSync(root), []);
  assert.equal((await goldens.status('tiny-console')).built, false);
});
