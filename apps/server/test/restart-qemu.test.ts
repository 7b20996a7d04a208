// vm_lease_restart on REAL QEMU (TCG), through the built server over MCP: tiny-console-agent with
// a disk (a blank qcow2 golden, the agent golden's kernel and initramfs), resumed from its saved
// state like every lease of a saved-state template. Graceful: the guest agent's guest-shutdown
// {mode: reboot} (the golden's /sbin/shutdown) reboots the guest inside the same qemu; then
// {hard: true}: system_reset. Each time a process started before is gone, a block written to the
// guest's disk (the lease's qcow2 overlay) is still there, the lease keeps its id and expiry, the
// qemu process is the same one, the readiness stages ran again — the serial marker waited for
// again although the machine had resumed from a saved state, whose first ready skipped it — and
// the console answers (a screenshot through QMP, a command through the agent). Needs the
// tiny-console-agent golden (`vmhub-server golden build tiny-console-agent`) and qemu-img.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { until } from '@vmhub/test-kit';
import { ok as check, sleepers } from './snapshot-checks.ts';
import { diskTemplate } from './qemu-disk.ts';
import { connect, leaseReady, machineBox, type Session } from './harness.ts';

const run = promisify(execFile);
const box = machineBox('restartq', 'rq');
let s: Session;
let lease = '';

const ok = (name: string, args: Record<string, unknown>) => check(s, name, args);
const sh = async (shell: string) => (await ok('vm_exec', { lease_id: lease, shell, timeout_seconds: 60 })).stdout as string;
const qemuPid = () => run('pgrep', ['-f', `vmhub-${box.instance}-${lease}`]).then((r) => r.stdout.trim(), () => '');
/** Sector 8 of the guest's disk, NULs dropped. */
const diskMark = async () => (await sh('dd if=/dev/vda bs=512 skip=8 count=1 2>/dev/null | tr -d "\\000"')).trim();

before(async () => {
  box.write({ templates: [await diskTemplate(box.dir)], providers: { qemu: { state_dir: join(box.dir, 'qemu') } } });
  s = await connect(box);
});
after(async () => {
  await box.end(s, [lease]);
});

describe('vm_lease_restart on QEMU (TCG, tiny-console-agent with a disk)', { timeout: 900_000 }, () => {
  for (const hard of [false, true]) {
    it(`${hard ? 'hard (system_reset)' : 'graceful (guest agent)'}: processes gone, the disk kept, same lease and qemu, the marker waited for again`, async () => {
      if (!lease) {
        const made = await leaseReady(s, { template: 'tiny-disk', ttl_seconds: 1800 }, 300, (id) => { lease = id; });
        assert.match(made.stages.find((x: any) => x.name === 'guest').detail, /resumed from saved state/, 'the lease resumed from the saved state (no marker waited for)');
      }
      const before = await ok('vm_lease_status', { lease_id: lease });
      const pid = await qemuPid();
      assert.ok(pid, 'a qemu runs for the lease');
      await sh('( sleep 31337 ) </dev/null >/dev/null 2>&1 &');
      // Started in the background: counted once it has exec'd.
      assert.equal(await until(async () => ((await sleepers(s, lease)) === 1 ? 1 : undefined), 'the sleep process runs', 10_000, 100), 1);
      await sh(`printf 'VMHUB-DISK-MARK-${hard}' | dd of=/dev/vda bs=512 seek=8 conv=notrunc,sync 2>/dev/null; sync`);
      assert.equal(await diskMark(), `VMHUB-DISK-MARK-${hard}`);
      const uptime = (await ok('vm_lease_status', { lease_id: lease, stats: true })).stats.uptime_seconds;

      const started = Date.now();
      let done = await ok('vm_lease_restart', { lease_id: lease, ...(hard ? { hard: true } : {}) });
      // TCG boots in ~10 s; the restart waits ≤ 25 s, then vm_lease_status does.
      for (let i = 0; i < 20 && done.status === 'starting'; i++) done = await ok('vm_lease_status', { lease_id: lease, wait_seconds: 20 });
      assert.equal(done.status, 'ready', JSON.stringify(done));
      assert.equal(done.lease_id, lease);
      assert.equal(done.expires_at, before.expires_at, 'the expiry is unchanged');
      const reboot = done.stages[0];
      assert.equal(reboot.name, 'reboot');
      assert.match(reboot.detail, hard ? /^system_reset \(hard\)$/ : /the guest rebooted \(guest agent guest-shutdown/, JSON.stringify(done.stages));
      assert.deepEqual(done.stages.slice(1).map((x: any) => x.name), ['process', 'qmp', 'guest']);
      assert.match(done.stages[3].detail, /serial marker VMHUB-TINY-CONSOLE-READY; guest agent answered guest-ping/, 'booted anew: the marker was waited for');

      assert.equal(await qemuPid(), pid, 'the same qemu process');
      assert.equal(await sleepers(s, lease), 0, 'the process started before the restart is gone');
      assert.equal(await diskMark(), `VMHUB-DISK-MARK-${hard}`, 'the block written to the disk is still there');
      const stats = (await ok('vm_lease_status', { lease_id: lease, stats: true })).stats;
      assert.ok(stats.uptime_seconds < uptime + (Date.now() - started) / 1000 - 1, `uptime counts from the reboot: ${uptime} before, ${stats.uptime_seconds} after`);
      const shot = await ok('vm_screenshot', { lease_id: lease });
      assert.ok(shot.screen.width > 0 && shot.bytes > 0, 'the console answers');
      assert.equal((await sh('echo alive')).trim(), 'alive');
    });
  }
});
