import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { normalizeBaseUrl, resolveProxmoxConfig } from './config.ts';

const FP = 'AB:'.repeat(31) + 'AB';

describe('proxmox: config precedence', () => {
  it('single node from PVE_HOST / PVE_TOKEN_ID / PVE_TOKEN (seed names)', () => {
    const c = resolveProxmoxConfig({ PVE_HOST: '192.168.1.220:8006', PVE_TOKEN_ID: 'ci@pve!vmhub', PVE_TOKEN: 'secret-1' });
    assert.equal(c.endpoints.length, 1);
    assert.deepEqual(c.endpoints[0], { id: 'default', baseUrl: 'https://192.168.1.220:8006/api2/json', tokenId: 'ci@pve!vmhub', token: 'secret-1', insecureSkipVerify: false });
  });

  it('host without port gets 8006; URLs keep theirs; /api2/json is added once', () => {
    assert.equal(normalizeBaseUrl('pve.lan', 'x'), 'https://pve.lan:8006/api2/json');
    assert.equal(normalizeBaseUrl('https://pve.lan:443/', 'x'), 'https://pve.lan/api2/json');
    assert.equal(normalizeBaseUrl('https://pve.lan:8006/api2/json', 'x'), 'https://pve.lan:8006/api2/json');
    assert.throws(() => normalizeBaseUrl('http://pve.lan:8006', 'x'), /non-loopback/);
    assert.equal(normalizeBaseUrl('http://127.0.0.1:9999', 'x'), 'http://127.0.0.1:9999/api2/json');
  });

  it('multi-node: per-node token wins, PVE_TOKEN is only the default node\'s fallback', () => {
    const env = {
      VMHUB_NODES: 'dl360p, vostro',
      PVE_HOST: '10.0.0.1:8006', PVE_TOKEN: 'global', PVE_TOKEN_ID: 'ci@pve!vmhub',
      VMHUB_NODE_VOSTRO_BASE_URL: 'https://10.0.0.2:8006', VMHUB_NODE_VOSTRO_TOKEN: 'vostro-secret',
    };
    const c = resolveProxmoxConfig(env);
    assert.deepEqual(c.endpoints.map((e) => [e.id, e.baseUrl, e.token]), [
      ['dl360p', 'https://10.0.0.1:8006/api2/json', 'global'],
      ['vostro', 'https://10.0.0.2:8006/api2/json', 'vostro-secret'],
    ]);
    const c2 = resolveProxmoxConfig({ ...env, VMHUB_NODE_DL360P_TOKEN: 'own', VMHUB_NODE_DL360P_BASE_URL: '10.0.0.9:8006' });
    assert.equal(c2.endpoints[0].token, 'own');
    assert.equal(c2.endpoints[0].baseUrl, 'https://10.0.0.9:8006/api2/json');
  });

  it('a non-default node without its own token fails, naming the variable', () => {
    assert.throws(() => resolveProxmoxConfig({ VMHUB_NODES: 'a,b', PVE_HOST: 'h:8006', PVE_TOKEN: 't', VMHUB_NODE_B_BASE_URL: 'h2:8006' }),
      (err: unknown) => VmhubError.is(err) && /VMHUB_NODE_B_TOKEN/.test(err.message));
  });

  it('explicit options beat env at the same level; node-level values beat global ones', () => {
    const env = { PVE_HOST: 'envhost:8006', PVE_TOKEN: 'envtoken', PVE_TOKEN_ID: 'env@pve!tk' };
    const c = resolveProxmoxConfig(env, { base_url: 'opthost:8006', token: 'opttoken', token_id: 'opt@pve!tk' });
    assert.equal(c.endpoints[0].baseUrl, 'https://opthost:8006/api2/json');
    assert.equal(c.endpoints[0].token, 'opttoken');
    assert.equal(c.endpoints[0].tokenId, 'opt@pve!tk');
    const c2 = resolveProxmoxConfig({ ...env, VMHUB_NODE_DEFAULT_TOKEN: 'node-env' }, { token: 'opttoken' });
    assert.equal(c2.endpoints[0].token, 'node-env');
    const c3 = resolveProxmoxConfig({ ...env, VMHUB_NODE_X_TOKEN: 'node-env' }, { endpoints: [{ id: 'x', base_url: 'h:8006', token: 'node-opt' }] });
    assert.equal(c3.endpoints[0].token, 'node-opt');
  });

  it('an explicit base_url is one endpoint even when VMHUB_NODES is set', () => {
    const c = resolveProxmoxConfig({ VMHUB_NODES: 'a,b', PVE_TOKEN: 'envtoken' }, { base_url: 'opthost:8006' });
    assert.deepEqual(c.endpoints.map((e) => [e.id, e.baseUrl, e.token]), [['default', 'https://opthost:8006/api2/json', 'envtoken']]);
  });

  it('a token given as id=secret carries its own id', () => {
    const c = resolveProxmoxConfig({ PVE_HOST: 'h:8006', PVE_TOKEN: 'root@pam!xx=1234-abcd', PVE_TOKEN_ID: 'other@pve!y' });
    assert.equal(c.endpoints[0].tokenId, 'root@pam!xx');
    assert.equal(c.endpoints[0].token, '1234-abcd');
  });

  it('TLS: fingerprint normalised, insecure only on explicit opt-in', () => {
    const base = { PVE_HOST: 'h:8006', PVE_TOKEN: 't' };
    assert.equal(resolveProxmoxConfig(base).endpoints[0].insecureSkipVerify, false);
    assert.equal(resolveProxmoxConfig({ ...base, PVE_INSECURE_SKIP_VERIFY: '0' }).endpoints[0].insecureSkipVerify, false);
    assert.equal(resolveProxmoxConfig(base, { insecure_skip_verify: true }).endpoints[0].insecureSkipVerify, true);
    assert.equal(resolveProxmoxConfig({ ...base, PVE_FINGERPRINT: FP }).endpoints[0].fingerprint, 'ab'.repeat(32));
    assert.throws(() => resolveProxmoxConfig({ ...base, PVE_FINGERPRINT: 'abcd' }), /64 hex digits/);
    assert.equal(resolveProxmoxConfig({ ...base, PVE_CA_FILE: '/etc/pve/pve-root-ca.pem' }).endpoints[0].caFile, '/etc/pve/pve-root-ca.pem');
  });

  it('bad token id and missing address are refused with the env name', () => {
    assert.throws(() => resolveProxmoxConfig({ PVE_HOST: 'h:8006', PVE_TOKEN: 't', PVE_TOKEN_ID: 'nobang@pve' }), /PVE_TOKEN_ID/);
    assert.throws(() => resolveProxmoxConfig({ PVE_TOKEN: 't' }), /PVE_HOST/);
  });
});
