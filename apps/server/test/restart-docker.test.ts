// vm_lease_restart on a REAL Docker engine, through the built server over MCP: a debian-x11 lease
// (provider-docker + x11) with a workspace at the home. A process started before the restart is
// gone after it, a file written in the container's filesystem stays and so does one in the
// workspace, the container is the same one (its id and start count in
// the engine), the lease keeps its id and expiry, its status went `starting` with a reboot stage
// and the readiness stages again, and the desktop answers again through the adapter (a
// screenshot; a line typed into a new xterm arrives). Then {hard: true}: the container is killed
// and started, same checks. A call made during the restart waits for it and runs on the
// restarted machine. Needs the debian-x11 golden (`vmhub-server golden build debian-x11`).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { until } from '@vmhub/test-kit';
import { ok as check, sleepers, typeIntoXterm } from './snapshot-checks.ts';
import { connect, leaseReady, machineBox, type Session } from './harness.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args).then((r) => r.stdout.trim());

const box = machineBox('restartdx', 'rdx');
let s: Session;
let lease = '';

const ok = (name: string, args: Record<string, unknown>) => check(s, name, args);
const container = () => docker('ps', '-aq', '--no-trunc', '--filter', `name=vmhub-${box.instance}-${lease}`);
const restarts = async (id: string) => docker('inspect', '-f', '{{.State.StartedAt}}', id);

before(async () => {
  box.write();
  s = await connect(box);
});
after(async () => {
  await box.end(s, [lease]);
  // The workspace outlives its lease by design: this test's volume goes here.
  await run('sh', ['-c', `docker volume rm -f $(docker volume ls -q --filter name=vmhub-${box.instance}-ws-) 2>/dev/null || true`]);
});

describe('vm_lease_restart on Docker (debian-x11 + x11)', { timeout: 600_000 }, () => {
  for (const hard of [false, true]) {
    it(`${hard ? 'hard' : 'graceful'}: processes gone, files kept, same lease and container, the desktop answers again`, async () => {
      if (!lease) await leaseReady(s, { template: 'debian-x11', workspace: 'restart-ws', ttl_seconds: 1200 }, 180, (id) => { lease = id; });
      const before = await ok('vm_lease_status', { lease_id: lease });
      const id = await container();
      const startedBefore = await restarts(id);
      assert.equal(await typeIntoXterm(s, lease, `/tmp/typed-${hard}.txt`, 'before restart'), 'before restart', 'the adapter session works before');
      await ok('vm_exec', { lease_id: lease, shell: 'nohup sleep 31337 >/dev/null 2>&1 &' });
      // Started in the background: counted once it has exec'd.
      assert.equal(await until(async () => ((await sleepers(s, lease)) === 1 ? 1 : undefined), 'the sleep process runs', 10_000, 100), 1);
      await ok('vm_put_file', { lease_id: lease, path: `/var/tmp/kept-${hard}.txt`, content: 'in the container filesystem' });
      await ok('vm_put_file', { lease_id: lease, path: `/home/user/kept-${hard}.txt`, content: 'in the workspace' });

      const restart = s.call('vm_lease_restart', { lease_id: lease, ...(hard ? { hard: true } : {}) });
      // Asked while the restart runs: it waits for the machine and runs on the restarted one.
      await new Promise((r) => setTimeout(r, 300));
      const during = s.call('vm_exec', { lease_id: lease, shell: 'cat /proc/1/cmdline | tr "\\0" " "; echo; ps -o pid= -C Xvfb | wc -l' });
      const done = (await restart).structuredContent;
      assert.equal(done.status, 'ready', JSON.stringify(done));
      assert.equal(done.lease_id, lease);
      assert.equal(done.expires_at, before.expires_at, 'the expiry is unchanged');
      assert.equal(done.stages[0].name, 'reboot');
      assert.match(done.stages[0].detail, hard ? /SIGKILL\) and started again/ : /restarted \(SIGTERM/);
      assert.deepEqual(done.stages.slice(1).map((x: any) => x.name), ['container', 'display', 'desktop']);
      assert.ok(done.stages.every((x: any) => x.status === 'done'), JSON.stringify(done.stages));
      const ran = await during;
      assert.equal(ran.isError, undefined, `the call made during the restart: ${JSON.stringify(ran.structuredContent)}`);
      assert.match(ran.structuredContent.stdout, /tini/);

      assert.equal(await container(), id, 'the same container');
      assert.notEqual(await restarts(id), startedBefore, 'the container was started again');
      assert.equal(await sleepers(s, lease), 0, 'the process started before the restart is gone');
      assert.equal((await ok('vm_get_file', { lease_id: lease, path: `/var/tmp/kept-${hard}.txt` })).content, 'in the container filesystem');
      assert.equal((await ok('vm_get_file', { lease_id: lease, path: `/home/user/kept-${hard}.txt` })).content, 'in the workspace');
      assert.match((await ok('vm_exec', { lease_id: lease, shell: 'grep " /home/user " /proc/mounts' })).stdout, /\/home\/user/, 'the workspace is mounted at the home again');
      const shot = await ok('vm_screenshot', { lease_id: lease });
      assert.deepEqual(shot.screen, { width: 1280, height: 800 });
      assert.equal(await typeIntoXterm(s, lease, `/tmp/typed-after-${hard}.txt`, 'after restart'), 'after restart', 'the adapter reconnected to the new X server');
      const events = await ok('vm_logs', { lease_id: lease, source: 'session', tail: 2 });
      assert.deepEqual(events.lines.map((l: string) => l.split(' ')[1]), ['lease.restarting', 'lease.restarted']);
    });
  }
});
