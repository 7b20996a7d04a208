/**
 * What the real-engine snapshot suites (snapshots-docker.test.ts, snapshots-qemu.test.ts) share:
 * a tool call asserted successful, "this path is absent on these leases", and releasing leases
 * until the engine no longer has their machines (`machines(id)` answers what the engine still
 * lists for the lease — container ids, qemu pids — and '' once it has none).
 */
import assert from 'node:assert/strict';
import { until } from '@vmhub/test-kit';
import { errorCode, type Session } from './harness.ts';

/** `name` called with `args`, asserted not an error; its structured result. */
export async function ok(s: Session, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await s.call(name, args);
  assert.equal(r.isError, undefined, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

/** vm_get_file of `path` answers NOT_FOUND on every lease of `leases`. */
export async function absentOn(s: Session, leases: string[], path: string): Promise<void> {
  for (const id of leases) assert.equal(errorCode(await s.call('vm_get_file', { lease_id: id, path })), 'NOT_FOUND', `${path} on ${id}`);
}

/** Release each lease (it had a machine) and wait, bounded, until the engine lists none of it. */
export async function releaseUntilGone(s: Session, leases: string[], machines: (id: string) => Promise<string>, ms = 60_000): Promise<void> {
  for (const id of leases) {
    assert.ok(await machines(id), `lease ${id} has a machine before release`);
    assert.equal((await ok(s, 'vm_lease_release', { lease_id: id })).status, 'released');
    await until(async () => ((await machines(id)) === '' ? true : undefined), `lease ${id}'s machine gone from the engine`, ms, 250);
  }
}
