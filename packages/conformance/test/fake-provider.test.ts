// The fake provider across processes: one shared dir, exactly-once create per identity, one
// winner among concurrent destroys, and a ledger that counts both.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { identityPrefix, machineIdentity, VmhubError } from '@vmhub/core';
import { fakeProvider, fakeTemplate, readFakeLedger } from '../src/fake/index.ts';

const run = promisify(execFile);
const worker = new URL('./fixtures/fake-worker.ts', import.meta.url).pathname;

async function inProcess(dir: string, prefix: string, op: string, identity: string, externalId: string, n: number): Promise<{ pid: number; out: string[] }> {
  const { stdout } = await run(process.execPath, [worker, dir, prefix, op, identity, externalId, String(n)], { timeout: 30_000 });
  return JSON.parse(stdout.trim()) as { pid: number; out: string[] };
}

describe('fake: provider across processes', () => {
  let dir: string;
  const instance = `mp${randomUUID().slice(0, 6)}`;
  const prefix = identityPrefix(instance);
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'vmhub-fake-mp-')); });
  after(() => rm(dir, { recursive: true, force: true }));

  it('4 processes × 10 concurrent creates of one identity make exactly one machine', async () => {
    const identity = machineIdentity(instance, randomUUID());
    const results = await Promise.all(Array.from({ length: 4 }, () => inProcess(dir, prefix, 'create', identity, '-', 10)));
    const ids = new Set(results.flatMap((r) => r.out));
    assert.equal(ids.size, 1, `all 40 creates must return one external id, got ${[...ids].join(', ')}`);
    const creates = (await readFakeLedger(dir)).filter((e) => e.op === 'create' && e.identity === identity);
    assert.equal(creates.length, 1, 'the ledger must hold exactly one create for the identity');
    assert.ok(results.some((r) => r.pid === creates[0]!.pid), 'the ledger line carries the creating process id');
    const listed = await inProcess(dir, prefix, 'list', '-', '-', 0);
    assert.ok(listed.out.includes(identity), 'another process lists the machine');
  });

  it('3 processes × 5 concurrent destroys: exactly one "destroyed", the rest "already_gone"', async () => {
    const provider = fakeProvider.create({ dir }, { identityPrefix: prefix, log: () => undefined });
    const identity = machineIdentity(instance, randomUUID());
    const ref = await provider.create({ lease_id: 'x', identity, template: fakeTemplate(), signal: AbortSignal.timeout(5000) });
    const results = await Promise.all(Array.from({ length: 3 }, () => inProcess(dir, prefix, 'destroy', identity, ref.external_id, 5)));
    const outcomes = results.flatMap((r) => r.out);
    assert.equal(outcomes.filter((o) => o === 'destroyed').length, 1, `outcomes: ${outcomes.join(', ')}`);
    assert.equal(outcomes.filter((o) => o === 'already_gone').length, 14);
    const destroys = (await readFakeLedger(dir)).filter((e) => e.op === 'destroy' && e.identity === identity);
    assert.equal(destroys.length, 1, 'the ledger must hold exactly one destroy');
    assert.ok(!(await provider.list()).some((m) => m.identity === identity));
  });

  it('a forged identity from another process leaves the machine alone', async () => {
    const provider = fakeProvider.create({ dir }, { identityPrefix: prefix, log: () => undefined });
    const identity = machineIdentity(instance, randomUUID());
    const ref = await provider.create({ lease_id: 'x', identity, template: fakeTemplate(), signal: AbortSignal.timeout(5000) });
    const forged = await inProcess(dir, prefix, 'destroy', machineIdentity(instance, randomUUID()), ref.external_id, 1);
    assert.deepEqual(forged.out, ['identity_mismatch']);
    assert.ok((await provider.list()).some((m) => m.identity === identity));
    assert.equal(await provider.destroy(ref), 'destroyed');
  });

  it('the ledger is one JSON line per operation', async () => {
    const lines = (await readFile(join(dir, 'ledger.log'), 'utf8')).trim().split('\n');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.equal(lines.length, (await readFakeLedger(dir)).length);
  });
});

describe('fake: provider behaviour', () => {
  let dir: string;
  const prefix = identityPrefix(`b${randomUUID().slice(0, 6)}`);
  const log = () => undefined;
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'vmhub-fake-b-')); });
  after(() => rm(dir, { recursive: true, force: true }));

  it('fail_at "create" → PROVISION_FAILED and nothing created', async () => {
    const p = fakeProvider.create({ dir }, { identityPrefix: prefix, log });
    const identity = `${prefix}${randomUUID()}`;
    await assert.rejects(p.create({ lease_id: 'x', identity, template: fakeTemplate({ provider_options: { fail_at: 'create' } }), signal: AbortSignal.timeout(5000) }), (e) => VmhubError.is(e) && e.code === 'PROVISION_FAILED' && e.source === 'provider-fake');
    assert.ok(!(await p.list()).some((m) => m.identity === identity));
  });

  it('fail_at "ready" → BOOT_TIMEOUT with the boot stage failed', async () => {
    const p = fakeProvider.create({ dir }, { identityPrefix: prefix, log });
    const template = fakeTemplate({ provider_options: { fail_at: 'ready', ready_delay_ms: 10 } });
    const ref = await p.create({ lease_id: 'x', identity: `${prefix}${randomUUID()}`, template, signal: AbortSignal.timeout(5000) });
    const stages: string[] = [];
    await assert.rejects(p.ready(ref, { signal: AbortSignal.timeout(5000), template, stage: (n, s) => { stages.push(`${n}:${s}`); } }), (e) => VmhubError.is(e) && e.code === 'BOOT_TIMEOUT');
    assert.deepEqual(stages, ['boot:running', 'boot:failed']);
    assert.equal(await p.destroy(ref), 'destroyed');
  });

  it('ready waits ready_delay_ms and honours the signal', async () => {
    const p = fakeProvider.create({ dir }, { identityPrefix: prefix, log });
    const template = fakeTemplate({ provider_options: { ready_delay_ms: 300 } });
    const ref = await p.create({ lease_id: 'x', identity: `${prefix}${randomUUID()}`, template, signal: AbortSignal.timeout(5000) });
    const started = Date.now();
    await p.ready(ref, { signal: AbortSignal.timeout(5000), template, stage: () => undefined });
    assert.ok(Date.now() - started >= 290, `ready took ${Date.now() - started} ms`);
    await assert.rejects(p.ready(ref, { signal: AbortSignal.timeout(50), template, stage: () => undefined }));
    assert.equal(await p.destroy(ref), 'destroyed');
  });

  it('status, availability and the down option', async () => {
    const up = fakeProvider.create({ dir }, { identityPrefix: prefix, log });
    assert.equal((await up.status()).ok, true);
    assert.deepEqual(await up.availability(fakeTemplate()), { availability: 'available' });
    assert.deepEqual(await up.availability(fakeTemplate({ provider_options: { unavailable_reason: 'image not built' } })), { availability: 'unavailable', reason: 'image not built' });
    const down = fakeProvider.create({ dir, down: true }, { identityPrefix: prefix, log });
    const s = await down.status();
    assert.equal(s.ok, false);
    assert.match(s.reason!, /down/);
    assert.equal((await down.availability(fakeTemplate())).availability, 'unavailable');
  });

  it('list() hides machines of another instance prefix', async () => {
    const mine = fakeProvider.create({ dir }, { identityPrefix: prefix, log });
    const otherPrefix = identityPrefix(`o${randomUUID().slice(0, 6)}`);
    const other = fakeProvider.create({ dir }, { identityPrefix: otherPrefix, log });
    const ref = await other.create({ lease_id: 'x', identity: `${otherPrefix}${randomUUID()}`, template: fakeTemplate(), signal: AbortSignal.timeout(5000) });
    assert.ok(!(await mine.list()).some((m) => m.identity === ref.identity));
    assert.ok((await other.list()).some((m) => m.identity === ref.identity));
    assert.equal(await other.destroy(ref), 'destroyed');
  });

  it('options are validated by defineProvider; VMHUB_FAKE_DIR is the default dir', async () => {
    assert.throws(() => fakeProvider.create({ dir: 42 as unknown as string }, { identityPrefix: prefix, log }), (e) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    const saved = process.env.VMHUB_FAKE_DIR;
    process.env.VMHUB_FAKE_DIR = dir;
    try {
      const p = fakeProvider.create({}, { identityPrefix: prefix, log });
      assert.deepEqual((await p.status()).details, { dir });
    } finally {
      if (saved === undefined) delete process.env.VMHUB_FAKE_DIR; else process.env.VMHUB_FAKE_DIR = saved;
    }
  });

  it('a claim left by a process that died before recording its machine is taken over', async () => {
    const p = fakeProvider.create({ dir }, { identityPrefix: prefix, log });
    const identity = `${prefix}${randomUUID()}`;
    await mkdir(join(dir, 'identities'), { recursive: true });
    await writeFile(join(dir, 'identities', identity), '');
    const old = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'identities', identity), old, old);
    const ref = await p.create({ lease_id: 'x', identity, template: fakeTemplate(), signal: AbortSignal.timeout(5000) });
    assert.equal(ref.identity, identity);
    assert.ok((await p.list()).some((m) => m.identity === identity));
    assert.equal(await p.destroy(ref), 'destroyed');
  });

  it('an external id that is not a fake id is refused, never used as a path', async () => {
    const p = fakeProvider.create({ dir }, { identityPrefix: prefix, log });
    assert.equal(await p.destroy({ identity: `${prefix}x`, external_id: '../../etc' }), 'already_gone');
    await assert.rejects(p.channel!({ identity: `${prefix}x`, external_id: '../x' }, fakeTemplate()), (e) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  });
});
