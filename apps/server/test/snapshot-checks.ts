/**
 * What the real-engine snapshot and restart suites (snapshots-docker, snapshots-qemu,
 * restart-docker, restart-qemu, stats-logs) share: a tool call asserted successful, "this path is
 * absent on these leases", releasing leases until the engine no longer has their machines
 * (`machines(id)` answers what the engine still lists for the lease — container ids, qemu pids —
 * and '' once it has none), the guest's `sleep 31337` processes (one started before a snapshot
 * or a restart must be gone after it), and a line typed into a new xterm (the desktop answers).
 */
import assert from 'node:assert/strict';
import { until } from '@vmhub/test-kit';
import { errorCode, guestText, type Session } from './harness.ts';

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

/** How many processes in the guest run `sleep 31337`. */
export async function sleepers(s: Session, lease: string): Promise<number> {
  return Number((await ok(s, 'vm_exec', { lease_id: lease, shell: 'grep -la "sleep.3133[7]" /proc/[0-9]*/cmdline 2>/dev/null | wc -l' })).stdout.trim());
}

/** An xterm whose shell writes the line typed into it to `file`; then `text` is typed: what reached `file`. */
export async function typeIntoXterm(s: Session, lease: string, file: string, text: string): Promise<string> {
  const r = await ok(s, 'vm_launch', { lease_id: lease, app: 'xterm', args: ['-e', 'sh', '-c', `IFS= read -r line; printf '%s' "$line" > ${file}.tmp && mv ${file}.tmp ${file}; sleep 30`], wait_seconds: 20 });
  assert.ok(r.window, 'vm_launch reports the new window');
  await ok(s, 'vm_focus', { lease_id: lease, window: r.window.id });
  await ok(s, 'vm_type', { lease_id: lease, text: `${text}\n` });
  return guestText(s, lease, file, (t) => t.length > 0, 20_000);
}
