import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startPveSimulator, simClient } from './index.ts';
import { useSimulator } from '../test/helpers/simulator.ts';

describe('pve-simulator: faults', () => {
  const pve = useSimulator({ tls: false, timing: { cloneMs: 30 } });
  afterEach(() => pve.sim.faults.clear());

  it('500: answers the injected error for `count` matching requests only', async () => {
    pve.sim.faults.inject({ match: { method: 'GET', path: /^\/version$/ }, kind: '500', count: 1, message: 'boom' });
    const a = await pve.api.get('/version');
    assert.deepEqual([a.status, a.reason, a.body], [500, 'boom', { data: null, message: 'boom\n' }]);
    assert.equal((await pve.api.get('/version')).status, 200);
    assert.equal((await pve.api.get('/nodes')).status, 200);
  });

  it('596: empty body, the proxy timeout reason', async () => {
    pve.sim.faults.inject({ match: { path: /\/status\/current$/ }, kind: '596' });
    const r = await pve.api.get('/nodes/pve1/qemu/9000/status/current');
    assert.deepEqual([r.status, r.reason, r.body], [596, 'Connection timed out', undefined]);
  });

  it('slow: delays the answer by delayMs', async () => {
    pve.sim.faults.inject({ match: { path: /^\/version$/ }, kind: 'slow', delayMs: 300, count: 1 });
    const t0 = Date.now();
    const r = await pve.api.get('/version');
    assert.equal(r.status, 200);
    assert.ok(Date.now() - t0 >= 290, `took ${Date.now() - t0} ms`);
  });

  it('a client giving up during a slow answer is not a simulator bug', async () => {
    pve.sim.faults.inject({ match: { method: 'PUT' }, kind: 'slow', delayMs: 300, count: 1 });
    const req = request(`${pve.sim.apiUrl}/nodes/pve1/qemu/9000/config`, { method: 'PUT', headers: { authorization: pve.sim.token.authorization, 'content-type': 'application/x-www-form-urlencoded' } });
    req.on('error', () => undefined);
    req.write('descr');
    setTimeout(() => req.destroy(), 50);
    await new Promise((r) => setTimeout(r, 450));
    assert.deepEqual(pve.sim.violations, []);
    assert.equal(pve.sim.state.requests.log.at(-1)?.status, 0);
  });

  it('drop before: connection reset and nothing happened', async () => {
    pve.sim.faults.inject({ match: { method: 'POST', path: /\/clone$/ }, kind: 'drop', count: 1 });
    await assert.rejects(pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 300 }), /socket hang up|ECONNRESET/);
    assert.equal(pve.sim.state.vm(300), undefined);
  });

  it('drop after: the clone happened but the answer was lost', async () => {
    pve.sim.faults.inject({ match: { method: 'POST', path: /\/clone$/ }, kind: 'drop', phase: 'after', count: 1 });
    await assert.rejects(pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 301 }), /socket hang up|ECONNRESET/);
    assert.equal(pve.sim.state.vm(301)?.lock, 'clone');
    pve.sim.state.settle();
    assert.equal(pve.sim.state.vm(301)?.lock, undefined);
  });

  it('lock: flock timeout or a named lock', async () => {
    pve.sim.faults.inject({ match: { path: /\/config$/ }, kind: 'lock', count: 1 });
    const a = await pve.api.put('/nodes/pve1/qemu/9000/config', { description: 'x' });
    assert.equal(a.reason, "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout");
    pve.sim.faults.inject({ match: { path: /\/config$/ }, kind: 'lock', message: 'backup', count: 1 });
    assert.equal((await pve.api.put('/nodes/pve1/qemu/9000/config', { description: 'x' })).reason, 'VM is locked (backup)');
  });

  it('lock with delayMs: a real lock holds for a while, reads still work', async () => {
    pve.sim.faults.inject({ match: { path: /\/qemu\/9000\// }, kind: 'lock', delayMs: 200, count: 1 });
    assert.equal((await pve.api.get('/nodes/pve1/qemu/9000/status/current')).body.data.lock, 'backup');
    assert.equal((await pve.api.put('/nodes/pve1/qemu/9000/config', { description: 'x' })).reason, 'VM is locked (backup)');
    await new Promise((r) => setTimeout(r, 250));
    assert.equal((await pve.api.put('/nodes/pve1/qemu/9000/config', { description: 'x' })).status, 200);
  });

  it('probability: fires on about that share of requests (seeded)', async () => {
    pve.sim.faults.inject({ match: { path: /^\/version$/ }, kind: '500', probability: 0.3 });
    let failed = 0;
    for (let i = 0; i < 40; i++) if ((await pve.api.get('/version')).status === 500) failed++;
    assert.ok(failed > 3 && failed < 25, `failed ${failed}/40`);
  });

  it('failTasks: a clone task ends with the injected exit status and leaves no VM', async () => {
    pve.sim.faults.failTasks({ type: 'qmclone', exitstatus: 'clone failed: disk full', count: 1 });
    const r = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 302 });
    assert.equal(r.status, 200, 'a 200 with a UPID is not success');
    assert.equal(await pve.api.waitTask(r.body.data), 'clone failed: disk full');
    assert.equal(pve.sim.state.vm(302), undefined);
    const log = await pve.api.get(`/nodes/pve1/tasks/${encodeURIComponent(r.body.data)}/log`);
    assert.equal(log.body.data.at(-1).t, 'TASK ERROR: clone failed: disk full');
  });

  it('failTasks with WARNINGS: n: the effect happens, the status carries the warnings', async () => {
    pve.sim.faults.failTasks({ type: 'qmclone', exitstatus: 'WARNINGS: 2', count: 1 });
    const r = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 303 });
    assert.equal(await pve.api.waitTask(r.body.data), 'WARNINGS: 2');
    assert.equal(pve.sim.state.vm(303)?.lock, undefined);
    assert.equal(pve.sim.state.task(r.body.data)?.log.at(-1), 'TASK WARNINGS: 2');
  });

  it('raceNextId: another client takes the id right after nextid answered', async () => {
    pve.sim.faults.raceNextId(1);
    const id = Number((await pve.api.get('/cluster/nextid')).body.data);
    const r = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: id });
    assert.equal(r.status, 500);
    assert.equal(r.reason, `unable to create VM ${id}: config file already exists`);
    const taken = await pve.api.get('/cluster/nextid', { vmid: id });
    assert.deepEqual(taken.body.errors, { vmid: `VM ${id} already exists` });
    const next = Number((await pve.api.get('/cluster/nextid')).body.data);
    assert.notEqual(next, id);
  });

  it('offline node: proxied calls answer 595', async () => {
    pve.sim.state.setNodeOnline('pve1', false);
    try {
      const r = await pve.api.get('/nodes/pve1/qemu/9000/config');
      assert.deepEqual([r.status, r.body], [595, undefined]);
      const nodes = await pve.api.get('/nodes');
      assert.equal(nodes.body.data[0].status, 'offline');
    } finally {
      pve.sim.state.setNodeOnline('pve1', true);
    }
    assert.deepEqual(pve.sim.violations, []);
  });
});

describe('pve-simulator: storage lock contention', () => {
  it('fails the clone beyond parallelClonesPerStorage with the storage lock timeout', async () => {
    const sim = await startPveSimulator({ tls: false, parallelClonesPerStorage: 2, timing: { cloneMs: 60_000 } });
    try {
      const api = simClient(sim);
      const upids: string[] = [];
      for (const newid of [600, 601, 602]) upids.push((await api.post('/nodes/pve1/qemu/9000/clone', { newid })).body.data);
      assert.equal(await api.waitTask(upids[2]!), "clone failed: can't lock file '/var/lock/pve-manager/pve-storage-local-lvm' - got timeout");
      assert.equal(sim.state.vm(602), undefined);
      sim.state.settle();
      assert.deepEqual(upids.slice(0, 2).map((u) => sim.state.task(u)?.exitstatus), ['OK', 'OK']);
      assert.deepEqual(sim.violations, []);
    } finally {
      await sim.close();
    }
  });
});
