import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSimulator } from '../test/helpers/simulator.ts';

const UPID_RE = /^UPID:([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-F]{8}):([0-9A-F]{8,9}):([0-9A-F]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/;
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl vmhub@lease-1';

for (const mode of ['9', '8'] as const) describe(`pve-simulator: clone → start → agent → destroy over HTTPS (PVE ${mode})`, () => {
  const pve = useSimulator({ mode, timing: { cloneMs: 60_000, startMs: 50 }, guest: { agentDelayMs: 300 } });

  it('runs the whole lease lifecycle with schema-valid answers', async () => {
    assert.match(pve.sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(pve.sim.certificate!.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    const next = await pve.api.get('/cluster/nextid');
    assert.equal(next.status, 200);
    assert.equal(typeof next.body.data, 'string', 'nextid is a JSON string like PVE sends it');
    const newid = Number(next.body.data);

    const clone = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid, name: 'lease-1', full: 0 });
    assert.equal(clone.status, 200);
    const upid: string = clone.body.data;
    const m = UPID_RE.exec(upid);
    assert.ok(m, `UPID format: ${upid}`);
    assert.equal(m[1], 'pve1');
    assert.equal(m[6], 'qmclone');
    assert.equal(m[7], '9000', 'qmclone UPID carries the source vmid');
    assert.equal(m[8], pve.sim.token.tokenId);

    // the new VM exists at once, locked
    assert.equal(pve.sim.state.vm(newid)?.lock, 'clone');
    const locked = await pve.api.put(`/nodes/pve1/qemu/${newid}/config`, { tags: 'x' });
    assert.equal(locked.status, 500);
    assert.equal(locked.reason, 'VM is locked (clone)');
    assert.deepEqual(locked.body, { data: null, message: 'VM is locked (clone)\n' });

    const running = await pve.api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`);
    assert.equal(running.body.data.status, 'running');
    pve.sim.state.settle();
    assert.equal(await pve.api.waitTask(upid), 'OK');
    assert.equal(pve.sim.state.vm(newid)?.lock, undefined);

    const sshkeys = encodeURIComponent(SSH_KEY);
    const raw = await pve.api.put(`/nodes/pve1/qemu/${newid}/config`, { sshkeys: SSH_KEY });
    assert.equal(raw.status, 400, 'a raw key fails the urlencoded format');
    assert.match(raw.body.errors.sshkeys, /^invalid format - invalid urlencoded string/);
    const cfg = await pve.api.post(`/nodes/pve1/qemu/${newid}/config`, {
      tags: 'vmhub-Inst1-Lease1;Golden', description: 'lease 1', ciuser: 'vmhub', sshkeys, ipconfig0: 'ip=dhcp', cores: 2, memory: '1024',
    });
    assert.equal(cfg.status, 200);
    assert.equal(await pve.api.waitTask(cfg.body.data), 'OK');
    const read = await pve.api.get(`/nodes/pve1/qemu/${newid}/config`);
    assert.equal(read.body.data.tags, 'golden;vmhub-inst1-lease1');
    assert.equal(read.body.data.sshkeys, sshkeys, 'stored and returned URL-encoded');
    assert.equal(read.body.data.cores, 2);
    assert.match(read.body.data.digest, /^[0-9a-f]{40}$/);

    const notRunning = await pve.api.post(`/nodes/pve1/qemu/${newid}/agent/ping`);
    assert.equal(notRunning.status, 500);
    assert.equal(notRunning.reason, `VM ${newid} is not running`);

    const start = await pve.api.post(`/nodes/pve1/qemu/${newid}/status/start`);
    assert.match(start.body.data, /:qmstart:/);
    assert.equal(await pve.api.waitTask(start.body.data), 'OK');
    const booting = await pve.api.post(`/nodes/pve1/qemu/${newid}/agent/ping`);
    assert.equal(booting.reason, 'QEMU guest agent is not running');
    let ready = false;
    for (let i = 0; i < 100 && !ready; i++) {
      ready = (await pve.api.post(`/nodes/pve1/qemu/${newid}/agent/ping`)).status === 200;
      if (!ready) await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(ready, 'agent answers after agentDelayMs');
    assert.equal(pve.sim.state.vm(newid)?.cloudInitAtStart?.ciuser, 'vmhub');

    pve.sim.state.setGuest(newid, { interfaces: [{ name: 'eth0', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 }] }] });
    const ifs = await pve.api.get(`/nodes/pve1/qemu/${newid}/agent/network-get-interfaces`);
    assert.deepEqual(ifs.body.data.result.map((i: { name: string }) => i.name), ['lo', 'eth0']);
    assert.equal(ifs.body.data.result[1]['ip-addresses'][0]['ip-address'], '127.0.0.1');

    const exec = await pve.api.post(`/nodes/pve1/qemu/${newid}/agent/exec`, { command: ['/bin/echo', 'hello', 'world'] });
    assert.equal(exec.status, 200);
    const pid = exec.body.data.pid;
    const st = await pve.api.get(`/nodes/pve1/qemu/${newid}/agent/exec-status`, { pid });
    assert.deepEqual(st.body.data, { exited: 1, exitcode: 0, 'out-data': 'hello world\n' });
    const again = await pve.api.get(`/nodes/pve1/qemu/${newid}/agent/exec-status`, { pid });
    assert.equal(again.reason, "Agent error: Invalid parameter 'pid'");

    const w = await pve.api.post(`/nodes/pve1/qemu/${newid}/agent/file-write`, { file: '/tmp/x', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encode: 0 });
    assert.equal(w.status, 200);
    assert.deepEqual(pve.sim.state.readGuestFile(newid, '/tmp/x'), Buffer.from([0, 1, 2, 255]));
    if (mode === '9') {
      const r = await pve.api.get(`/nodes/pve1/qemu/${newid}/agent/file-read`, { file: '/tmp/x', decode: 0 });
      assert.equal(Buffer.from(r.body.data.content, 'base64').toString('hex'), '000102ff');
      assert.equal(r.body.data['bytes-read'], 4);
    } else {
      // PVE 8: the bytes come back as a JSON string (not binary-safe); binary reads go through exec + base64
      const r = await pve.api.get(`/nodes/pve1/qemu/${newid}/agent/file-read`, { file: '/tmp/x' });
      assert.equal(r.body.data.content, '\u0000\u0001\u0002\u00ff');
      const b64 = await pve.api.post(`/nodes/pve1/qemu/${newid}/agent/exec`, { command: ['base64', '-w', '0', '--', '/tmp/x'] });
      const out = await pve.api.get(`/nodes/pve1/qemu/${newid}/agent/exec-status`, { pid: b64.body.data.pid });
      assert.equal(Buffer.from(out.body.data['out-data'], 'base64').toString('hex'), '000102ff');
    }

    const busy = await pve.api.del(`/nodes/pve1/qemu/${newid}`, { purge: 1 });
    assert.equal(busy.reason, `VM ${newid} is running - destroy failed`);
    const stop = await pve.api.post(`/nodes/pve1/qemu/${newid}/status/stop`);
    assert.equal(await pve.api.waitTask(stop.body.data), 'OK');
    pve.sim.state.addVolume(`local-lvm:vm-${newid}-disk-7`);
    const del = await pve.api.del(`/nodes/pve1/qemu/${newid}`, { purge: 1, 'destroy-unreferenced-disks': 1 });
    assert.match(del.body.data, /:qmdestroy:/);
    assert.equal(await pve.api.waitTask(del.body.data), 'OK');
    assert.equal(pve.sim.state.vm(newid), undefined);
    assert.deepEqual(pve.sim.state.volumes().filter((v) => v.includes(`vm-${newid}-`)), []);
    const rec = pve.sim.state.destroyed.at(-1)!;
    assert.deepEqual([rec.vmid, rec.purge, rec.destroyUnreferencedDisks, rec.tags], [newid, true, true, ['golden', 'vmhub-inst1-lease1']]);
    const gone = await pve.api.get(`/nodes/pve1/qemu/${newid}/status/current`);
    assert.equal(gone.reason, `Configuration file 'nodes/pve1/qemu-server/${newid}.conf' does not exist`);

    const log = await pve.api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/log`);
    assert.equal(log.body.data.at(-1).t, 'TASK OK');
    assert.equal(log.body.total, log.body.data.length);

    assert.deepEqual(pve.sim.violations, []);
    assert.ok(pve.sim.state.endpointsExercised().length >= 15, pve.sim.state.endpointsExercised().join('\n'));
    if (process.env.PVE_SIM_DEBUG) console.log(pve.sim.state.unknownFormats(), pve.sim.state.requests.undeclared);
    // keys outside the returns schema: only the ones real PVE sends too (reference sections 3 and 6)
    const extras = Object.entries(pve.sim.state.requests.undeclared).flatMap(([e, keys]) => [...keys].map((k) => `${e} ${k}`));
    assert.deepEqual(extras.filter((x) => !/tasks\/\{upid\}\/status \/tokenid$|file-read \/bytes-read$/.test(x)), []);
    const version = await pve.api.get('/version');
    assert.equal(version.body.data.release, mode === '9' ? '9.1' : '8.4');
  });
});
