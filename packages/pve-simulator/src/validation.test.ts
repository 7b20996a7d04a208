import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startPveSimulator, simClient } from './index.ts';
import { useSimulator } from '../test/helpers/simulator.ts';

describe('pve-simulator: request validation', () => {
  const pve = useSimulator({ tls: false });

  it('rejects a bad parameter with PVE error shape', async () => {
    const r = await pve.api.post('/nodes/pve1/qemu/9000/clone', { newid: 42 });
    assert.equal(r.status, 400);
    assert.equal(r.reason, 'Parameter verification failed.');
    assert.deepEqual(r.body, { data: null, errors: { newid: 'value must have a minimum value of 100' }, message: 'Parameter verification failed.\n' });
  });

  it('answers plain fetch with the same shapes (form body, status line reason)', async () => {
    const r = await fetch(`${pve.sim.apiUrl}/nodes/pve1/qemu/9000/clone`, {
      method: 'POST',
      headers: { authorization: pve.sim.token.authorization },
      body: new URLSearchParams({ newid: 'abc' }),
    });
    assert.equal(r.status, 400);
    assert.equal(r.statusText, 'Parameter verification failed.');
    assert.equal(r.headers.get('content-type'), 'application/json;charset=UTF-8');
    assert.deepEqual(await r.json(), { data: null, errors: { newid: "type check ('integer') failed - got 'abc'" }, message: 'Parameter verification failed.\n' });
    const ok = await fetch(`${pve.sim.apiUrl}/version`, { headers: { authorization: pve.sim.token.authorization } });
    assert.deepEqual(await ok.json(), { data: { version: '9.1.9', release: '9.1', repoid: 'e5010dce6a5f1c2b' } });
  });

  it('reports missing, unknown, mistyped and malformed parameters per key', async () => {
    const r = await pve.api.post('/nodes/pve1/qemu/9000/clone', { full: 'true', bogus: 1, name: 'bad_name' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors, {
      newid: 'property is missing and it is not optional',
      bogus: 'property is not defined in schema and the schema does not allow additional properties',
      full: "type check ('boolean') failed - got 'true'",
      name: 'invalid format - value does not look like a valid DNS name',
    });
  });

  it('validates path parameters, enums, property strings and tags', async () => {
    assert.equal((await pve.api.get('/nodes/pve_1/qemu')).body.errors.node, 'invalid format - value does not look like a valid node name');
    assert.equal((await pve.api.get('/nodes/pve1/qemu/12/config')).body.errors.vmid, 'value must have a minimum value of 100');
    const e = await pve.api.get('/cluster/resources', { type: 'vms' });
    assert.equal(e.body.errors.type, "value 'vms' does not have a value in the enumeration 'vm, storage, node, sdn'");
    const net = await pve.api.put('/nodes/pve1/qemu/9000/config', { net1: 'virtio,bridge=vmbr0,tag=9999' });
    assert.match(net.body.errors.net1, /^invalid format - format error\ntag: value must have a maximum value of 4094/);
    const tag = await pve.api.put('/nodes/pve1/qemu/9000/config', { tags: 'ok;not:ok' });
    assert.equal(tag.body.errors.tags, 'invalid format - invalid characters in tag');
    const ip = await pve.api.put('/nodes/pve1/qemu/9000/config', { ipconfig0: 'ip=10.0.0.5/33' });
    assert.match(ip.body.errors.ipconfig0, /^invalid format - format error\nip:/);
  });

  it('accepts JSON bodies with real booleans and numbers', async () => {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${pve.sim.apiUrl}/nodes/pve1/qemu/9000/config`, {
        method: 'PUT',
        headers: { authorization: pve.sim.token.authorization, 'content-type': 'application/json' },
      }, (res) => {
        let b = '';
        res.on('data', (c) => (b += c)).on('end', () => resolve({ status: res.statusCode!, body: b }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ onboot: true, cores: 4 }));
    });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(JSON.parse(r.body), { data: null });
    const cfg = await pve.api.get('/nodes/pve1/qemu/9000/config');
    assert.equal(cfg.body.data.onboot, 1);
    assert.equal(cfg.body.data.cores, 4);
  });

  it('answers unknown paths and methods with 501 like pveproxy', async () => {
    const p = await pve.api.get('/nodes/pve1/nonsense');
    assert.equal(p.status, 501);
    assert.equal(p.reason, "Method 'GET /nodes/pve1/nonsense' not implemented");
    const m = await pve.api.put('/version');
    assert.equal(m.status, 501);
    const known = await pve.api.post('/nodes/pve1/qemu/9000/migrate', { target: 'pve1' });
    assert.equal(known.status, 501, 'schema endpoint the simulator does not model');
    assert.equal(pve.sim.state.requests.unimplemented['POST /nodes/{node}/qemu/{vmid}/migrate'], 1);
  });

  it('rejects missing and wrong credentials with empty 401s', async () => {
    const none = await simClient(pve.sim, '').get('/version');
    assert.deepEqual([none.status, none.reason, none.body], [401, 'No ticket', undefined]);
    const bad = await simClient(pve.sim, `PVEAPIToken=${pve.sim.token.tokenId}=wrong`).get('/version');
    assert.deepEqual([bad.status, bad.reason, bad.body], [401, 'Authentication failed!', undefined]);
    const spaced = await simClient(pve.sim, `PVEAPIToken ${pve.sim.token.tokenId}=${pve.sim.token.secret}`).get('/version');
    assert.equal(spaced.status, 200);
  });

  it('records no response-schema violations', () => {
    assert.deepEqual(pve.sim.violations, []);
  });
});

describe('pve-simulator: response validation and auth details', () => {
  it('records a response that breaks the returns schema as a violation', async () => {
    const sim = await startPveSimulator({ tls: false });
    try {
      sim.state.raw(9000)!.config.cores = 'two';
      const r = await simClient(sim).get('/nodes/pve1/qemu/9000/config');
      assert.equal(r.status, 200);
      assert.equal(sim.violations.length, 1);
      assert.deepEqual(sim.violations[0]!.errors, ["/cores: type check ('integer') failed - got 'two'"]);
    } finally {
      await sim.close();
    }
  });

  it('can answer 500 on violations, delays 401s, and refuses expired tokens', async () => {
    const sim = await startPveSimulator({
      tls: false,
      onViolation: 'respond500',
      authFailureDelayMs: 200,
      tokens: [
        { tokenId: 'a@pve!ok', secret: 's', acl: [{ path: '/', roles: ['Administrator'] }] },
        { tokenId: 'a@pve!old', secret: 's', expire: 1000, acl: [{ path: '/', roles: ['Administrator'] }] },
      ],
    });
    try {
      sim.state.raw(9000)!.config.cores = 'two';
      const r = await simClient(sim).get('/nodes/pve1/qemu/9000/config');
      assert.equal(r.status, 500);
      assert.match(r.reason, /^pve-simulator bug: response of GET \/nodes\/\{node\}\/qemu\/\{vmid\}\/config violates the schema/);
      const t0 = Date.now();
      const old = await simClient(sim, 'PVEAPIToken=a@pve!old=s').get('/version');
      assert.equal(old.reason, 'Authentication failed!');
      assert.ok(Date.now() - t0 >= 190);
    } finally {
      await sim.close();
    }
  });
});
