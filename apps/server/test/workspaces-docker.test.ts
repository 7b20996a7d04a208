// Workspaces on the real Docker engine (debian-x11), through the BUILT server, reaper and CLI:
// - lease A with workspace "proj" finds the golden's home files in it (Docker copied them into
//   the empty volume), writes a file and installs a program into the home (~/bin/hello, a script:
//   the machine is offline, so no pip/apt); a concurrent lease C asking for "proj" gets
//   LOCK_CONTENTION naming A; A is released and the volume measured again (a 3 MiB file A wrote
//   counts); lease B with "proj" sees both and runs the program;
// - the server is SIGKILLed while B holds it, B expires, the reaper (server down) reaps it: the
//   volume is still in the engine, and a new server's lease D attaches it and sees the file;
// - no agent tool deletes a workspace; `vmhub-server workspaces rm` does (gone from the engine),
//   and refuses while a lease holds it. A new workspace while the principal's hold
//   workspaces.max_bytes_per_principal (as last measured) is QUOTA_EXCEEDED naming it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { Store } from '@vmhub/store';
import { connect, errorCode, leaseReady, machineBox, runBin, type Session } from './harness.ts';
import { killExpireReap } from './kill-and-reap.ts';

const run = promisify(execFile);
const box = machineBox('ws-docker', 'wd');
box.write({ providers: { docker: { framebuffer: false } }, workspaces: { max_bytes_per_principal: 10 * 1024 ** 3 } });
const leases: string[] = [];
let s: Session | undefined;
let volume = '';

async function exec(lease: string, shell: string): Promise<string> {
  const r = await s!.call('vm_exec', { lease_id: lease, shell });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  assert.equal(r.structuredContent.exit_code, 0, JSON.stringify(r.structuredContent));
  return r.structuredContent.stdout as string;
}

async function volumeExists(name: string): Promise<boolean> {
  return run('docker', ['volume', 'inspect', name]).then(() => true, () => false);
}

after(async () => {
  await box.end(s, leases);
  if (volume) await run('docker', ['volume', 'rm', '-f', volume]).catch(() => undefined);
});

describe('workspaces on Docker: kept across leases, one lease at a time, deleted only by a person', () => {
  let a = '';
  let b = '';

  it('lease A with workspace proj: the golden home is there; a file and a program are written into it', async () => {
    s = await connect(box);
    a = (await leaseReady(s, { template: 'debian-x11', workspace: 'proj', ttl_seconds: 900 }, 120, (id) => leases.push(id))).lease_id;
    const store = new Store({ path: box.db });
    const [ws] = await store.listWorkspaces();
    await store.close();
    assert.equal(ws?.name, 'proj');
    assert.equal(ws?.holder_lease, a);
    volume = ws!.identity;
    const inspect = JSON.parse((await run('docker', ['volume', 'inspect', volume])).stdout)[0];
    assert.equal(inspect.Labels['vmhub.identity'], volume);
    assert.equal(inspect.Labels['vmhub.workspace'], 'proj');
    assert.equal(inspect.Labels['vmhub.instance'], box.instance);
    // The golden's home content was copied into the empty volume on its first mount.
    assert.match(await exec(a, 'ls -A ~/.config; stat -c %U ~; findmnt -no TARGET ~'), /openbox[\s\S]*user\n\/home\/user/);
    await exec(a, 'echo "kept by proj" > ~/notes.txt && mkdir -p ~/bin && printf "#!/bin/sh\\necho hello from the workspace\\n" > ~/bin/hello && chmod +x ~/bin/hello');
  });

  it('a concurrent lease C asking for proj gets LOCK_CONTENTION naming A, and no lease is made', async () => {
    const before = (await s!.call('vm_lease_list', { status: 'live' })).structuredContent.leases.length;
    const c = await s!.call('vm_lease_create', { template: 'debian-x11', workspace: 'proj' });
    assert.equal(errorCode(c), 'LOCK_CONTENTION');
    assert.match(c.structuredContent.message, new RegExp(`attached to lease ${a}`));
    assert.equal((await s!.call('vm_lease_list', { status: 'live' })).structuredContent.leases.length, before);
  });

  it('bad names are INVALID_REQUEST and change nothing', async () => {
    for (const name of ['Proj', '-x', 'a b', '', 'x'.repeat(64), '../etc']) {
      const r = await s!.call('vm_lease_create', { template: 'debian-x11', workspace: name });
      assert.equal(errorCode(r), 'INVALID_REQUEST', `${JSON.stringify(name)}: ${JSON.stringify(r.structuredContent)}`);
    }
    const store = new Store({ path: box.db });
    assert.deepEqual((await store.listWorkspaces()).map((w) => w.name), ['proj']);
    await store.close();
  });

  it('a new workspace while the principal\'s workspaces hold workspaces.max_bytes_per_principal is QUOTA_EXCEEDED naming it', async () => {
    // As if the last measurement had found 12 GiB in proj (the limit here is 10 GiB).
    const store = new Store({ path: box.db });
    const [ws] = await store.listWorkspaces();
    await store.setWorkspaceBytes(ws!.id, 12 * 1024 ** 3);
    const r = await s!.call('vm_lease_create', { template: 'debian-x11', workspace: 'other' });
    assert.equal(errorCode(r), 'QUOTA_EXCEEDED');
    assert.match(r.structuredContent.message, /workspaces\.max_bytes_per_principal: 10737418240/);
    assert.deepEqual((await store.listWorkspaces()).map((w) => w.name), ['proj'], 'no workspace was made');
    await store.setWorkspaceBytes(ws!.id, 0);
    await store.close();
  });

  it('A released: the workspace is measured again (what A wrote counts toward the bytes quota); lease B with proj sees the file and runs the program', async () => {
    await exec(a, 'head -c 3145728 /dev/urandom > ~/blob.bin && sync');
    const store = new Store({ path: box.db });
    try {
      const [before] = await store.listWorkspaces();
      assert.ok(before!.bytes < 3 * 1024 ** 2, `measured at attach, before the write: ${before!.bytes}`);
      assert.equal((await s!.call('vm_lease_release', { lease_id: a })).structuredContent.status, 'released');
      let bytes = 0;
      for (let i = 0; i < 100 && bytes < 3 * 1024 ** 2; i++) {
        bytes = (await store.listWorkspaces())[0]!.bytes;
        if (bytes < 3 * 1024 ** 2) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(bytes >= 3 * 1024 ** 2, `measured after the release: ${bytes} bytes`);
    } finally {
      await store.close();
    }
    assert.ok(await volumeExists(volume), 'release leaves the volume');
    b = (await leaseReady(s!, { template: 'debian-x11', workspace: 'proj', ttl_seconds: 900 }, 120, (id) => leases.push(id))).lease_id;
    assert.equal(await exec(b, 'cat ~/notes.txt; ~/bin/hello'), 'kept by proj\nhello from the workspace\n');
  });

  it('a snapshot restore of B mounts the workspace again, and the workspace keeps what was written after the snapshot', async () => {
    const containerId = async () => (await run('docker', ['inspect', '-f', '{{.Id}}', `vmhub-${box.instance}-${b}`])).stdout.trim();
    const before = await containerId();
    const made = await s!.call('vm_snapshot', { action: 'create', lease_id: b });
    assert.equal(made.isError, undefined, JSON.stringify(made.structuredContent));
    await exec(b, 'echo "after the snapshot" > ~/after.txt');
    const restored = await s!.call('vm_snapshot', { action: 'restore', lease_id: b, snapshot_id: made.structuredContent.snapshots[0].snapshot_id });
    assert.equal(restored.isError, undefined, JSON.stringify(restored.structuredContent));
    assert.notEqual(await containerId(), before, 'the restore replaced the container');
    assert.equal(await exec(b, 'cat ~/after.txt ~/notes.txt'), 'after the snapshot\nkept by proj\n', 'the workspace is not rolled back: it is not in the snapshot');
    const mounts = JSON.parse((await run('docker', ['inspect', `vmhub-${box.instance}-${b}`])).stdout)[0].Mounts as { Type: string; Name?: string; Destination: string }[];
    assert.ok(mounts.some((m) => m.Type === 'volume' && m.Name === volume && m.Destination === '/home/user'), JSON.stringify(mounts));
    await s!.call('vm_snapshot', { action: 'delete', snapshot_id: made.structuredContent.snapshots[0].snapshot_id });
  });

  it('rm refuses while B holds it (LOCK_CONTENTION), and no agent tool deletes a workspace', async () => {
    const rm = await runBin(box, ['workspaces', 'rm', 'proj']);
    assert.equal(rm.code, 1, rm.stderr);
    assert.match(rm.stderr, new RegExp(`LOCK_CONTENTION: workspace "proj" is attached to lease ${b}`));
    assert.ok(await volumeExists(volume));
    const tools = (await s!.client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(tools.filter((t) => /workspace/.test(t)), [], 'no workspace tool');
  });

  it('server SIGKILLed while B holds it; B expires and the reaper reaps it: the volume stays, and a new lease attaches it', async () => {
    const { store, status } = await killExpireReap(s!, box, b);
    s = undefined;
    assert.equal(status, 'reaped');
    assert.equal(await run('docker', ['inspect', `vmhub-${box.instance}-${b}`]).then(() => 'there', () => 'gone'), 'gone', 'the reaper removed the container');
    assert.ok(await volumeExists(volume), 'the reaper left the workspace volume');
    assert.equal((await store.getWorkspace((await store.getLease(b))!.principal!, 'proj'))?.holder_lease, undefined, 'the reaped lease holds it no more');
    await store.close();

    s = await connect(box);
    const d = (await leaseReady(s, { template: 'debian-x11', workspace: 'proj' }, 120, (id) => leases.push(id))).lease_id;
    assert.equal(await exec(d, 'cat ~/notes.txt'), 'kept by proj\n');
    assert.equal((await s.call('vm_lease_release', { lease_id: d })).structuredContent.status, 'released');
  });

  it('`workspaces list` and `show` give its bytes; `workspaces rm` deletes it from the engine', async () => {
    const list = await runBin(box, ['workspaces', 'list', '--json']);
    assert.equal(list.code, 0, list.stderr);
    const [w] = JSON.parse(list.stdout).workspaces;
    assert.equal(w.name, 'proj');
    assert.equal(w.holder_lease, undefined);
    assert.ok(w.bytes > 0, `bytes measured: ${w.bytes}`);
    // show measures it now, not the figure list just recorded.
    const store = new Store({ path: box.db });
    await store.setWorkspaceBytes(w.workspace_id, 0);
    await store.close();
    const show = await runBin(box, ['workspaces', 'show', w.workspace_id, '--json']);
    assert.equal(show.code, 0, show.stderr);
    assert.ok(JSON.parse(show.stdout).bytes > 0, `show measured it: ${show.stdout}`);
    const rm = await runBin(box, ['workspaces', 'rm', 'proj']);
    assert.equal(rm.code, 0, rm.stderr);
    assert.match(rm.stdout, /deleted/);
    assert.equal(await volumeExists(volume), false, 'the volume is gone from the engine');
    const again = await runBin(box, ['workspaces', 'show', 'proj']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /NOT_FOUND/);
  });
});
