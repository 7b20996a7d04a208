import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { X509Certificate } from 'node:crypto';
import { VmhubError } from '@vmhub/core';
import { resolveProxmoxConfig } from './config.ts';
import { PveClient } from './pve-client.ts';

describe('proxmox: TLS trust', () => {
  let dir: string;
  let server: Server;
  let host: string;
  let fingerprint: string;
  let pem: string;
  const seenAuth: (string | undefined)[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vmhub-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    pem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    fingerprint = new X509Certificate(pem).fingerprint256;
    server = createServer({ cert: pem, key: readFileSync(join(dir, 'key.pem')) }, (req, res) => {
      seenAuth.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { release: '9.1', version: '9.1.9', repoid: 'abcdef12' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (extra: Record<string, unknown>): PveClient => {
    const ep = resolveProxmoxConfig({ PVE_HOST: host, PVE_TOKEN: 'sekrit', PVE_TOKEN_ID: 'ci@pve!vmhub' }, extra).endpoints[0];
    return new PveClient(ep, { timeoutMs: 3000, retries: 0, retryBaseMs: 10 });
  };

  it('the right pinned fingerprint is accepted', async () => {
    const c = client({ fingerprint });
    assert.equal((await c.get<{ release: string }>('/version')).release, '9.1');
    c.close();
  });

  it('a wrong fingerprint is refused before the token is sent', async () => {
    const before = seenAuth.length;
    const c = client({ fingerprint: 'AA:'.repeat(31) + 'AA' });
    await assert.rejects(c.get('/version'), (err: unknown) => VmhubError.is(err) && err.code === 'POLICY_DENIED' && /fingerprint/.test(err.message));
    assert.equal(seenAuth.length, before, 'no request reached the server');
    c.close();
  });

  it('no trust configured: the self-signed certificate is refused', async () => {
    const c = client({});
    await assert.rejects(c.get('/version'), (err: unknown) => (err as { status?: number }).status === 0 && /self.signed|certificate/i.test((err as Error).message));
    c.close();
  });

  it('the configured CA is accepted; insecure only on opt-in', async () => {
    const c = client({ ca: pem });
    assert.equal((await c.get<{ release: string }>('/version')).release, '9.1');
    c.close();
    const i = client({ insecure_skip_verify: true });
    assert.equal((await i.get<{ release: string }>('/version')).release, '9.1');
    i.close();
  });
});
