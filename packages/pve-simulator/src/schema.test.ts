import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadSchema } from './schema-tree.ts';
import { ROUTES } from './routes.ts';
import { perlRegex } from './perl-regex.ts';
import { parsePropertyString } from './property-string.ts';
import { decodeUrlencoded } from './request-params.ts';

describe('pve-simulator: schema handling', () => {
  it('loads both schemas once and finds endpoints by path template', () => {
    const t0 = Date.now();
    const s9 = loadSchema('9');
    const s8 = loadSchema('8');
    assert.equal(s9.endpointCount, 649);
    assert.equal(s8.endpointCount, 605);
    const t1 = Date.now();
    assert.equal(loadSchema('9'), s9, 'cached');
    const hit = s9.find('/nodes/pve1/qemu/100/clone');
    assert.equal(hit?.template, '/nodes/{node}/qemu/{vmid}/clone');
    assert.deepEqual(hit?.pathParams, { node: 'pve1', vmid: '100' });
    assert.equal(s9.find('/nodes/pve1/qemu/100/bogus'), undefined);
    const upid = 'UPID:pve1:0003A1F2:0127C9D4:6650F0A1:qmclone:9000:ci@pve!provider:';
    assert.deepEqual(s9.find(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`)?.pathParams.upid, upid);
    assert.ok(t1 - t0 < 2000, `schema load took ${t1 - t0} ms`);
  });

  it('models only endpoints that exist in both schemas', () => {
    const routes = Object.keys(ROUTES);
    assert.ok(routes.length >= 50);
    for (const mode of ['9', '8'] as const) {
      const s = loadSchema(mode);
      const missing = routes.filter((e) => {
        const [method, template] = e.split(' ') as ['GET', string];
        return !s.method(template, method);
      });
      assert.deepEqual(missing, [], `mode ${mode}`);
    }
  });

  it('turns Perl (?^:...) and (?^i:...) patterns into anchored JS regexes', () => {
    const tags = perlRegex('(?:(?^i:[a-z0-9_][a-z0-9_\\-\\+\\.]*);)*(?^i:[a-z0-9_][a-z0-9_\\-\\+\\.]*)');
    assert.ok(tags.test('Abc;def'));
    assert.ok(!tags.test('abc;'));
    const user = perlRegex('(?^:^(?^:[^\\s:/]+)\\@(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+)(?:!(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+))?$)');
    assert.ok(user.test('ci@pve!provider'));
    assert.ok(!user.test('ci@pve!'));
  });

  it('parses property strings with default keys and key aliases', () => {
    const net = loadSchema('9').method('/nodes/{node}/qemu/{vmid}/config', 'PUT')!.parameters!.properties!['net[n]']!.format as Record<string, never>;
    assert.deepEqual(parsePropertyString(net, 'virtio=BC:24:11:00:00:01,bridge=vmbr0,tag=5').values, { model: 'virtio', macaddr: 'BC:24:11:00:00:01', bridge: 'vmbr0', tag: '5' });
    assert.deepEqual(parsePropertyString(net, 'e1000,bridge=vmbr1').values, { model: 'e1000', bridge: 'vmbr1' });
    assert.match(parsePropertyString(net, 'virtio,speed=9').error!, /speed: property is not defined/);
  });

  it('decodes forms the way pve-http-server does', () => {
    assert.deepEqual(decodeUrlencoded('command=%2Fbin%2Fsh&command=-c&command=echo+hi;x=1'), { command: ['/bin/sh', '-c', 'echo hi'], x: '1' });
    assert.deepEqual(decodeUrlencoded('sshkeys=ssh-ed25519%2520AAAA'), { sshkeys: 'ssh-ed25519%20AAAA' });
  });
});
