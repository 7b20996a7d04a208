// lease-session.ts: a lease's forwards follow its template — a unix socket in a 0700 directory
// by default, TCP 127.0.0.1 only under `forward_tcp: true` — and end with the session.
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GuestEndpoint, Provider, TemplateConfig } from '@vmhub/core';
import { LeaseSession } from './lease-session.ts';

describe('LeaseSession forwards', () => {
  // The "guest": an echo server; the provider's connect dials it whatever the guest port.
  const echo = createServer((s) => s.pipe(s));
  let provider: Provider;
  before(async () => {
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    const port = (echo.address() as AddressInfo).port;
    provider = { connect: async () => connect(port, '127.0.0.1') } as unknown as Provider;
  });
  after(() => new Promise<void>((r) => echo.close(() => r())));

  const template = (extra: Partial<TemplateConfig> = {}): TemplateConfig => ({ id: 't', provider: 'p', adapter: 'a', os: 'linux', golden: 'g', ...extra });
  const roundTrip = (ep: GuestEndpoint) => new Promise<string>((resolve, reject) => {
    const s = connect(ep, () => s.write('ping'));
    s.once('data', (d) => { resolve(String(d)); s.destroy(); });
    s.once('error', reject);
  });

  it('default: a unix socket in a 0700 directory, removed when the session ends', async () => {
    const session = new LeaseSession('l1', { identity: 'vmhub-x-l1', external_id: 'x' }, template(), provider, undefined);
    const ep = await session.lease.forward(5555);
    assert.ok(ep.path, JSON.stringify(ep));
    assert.equal(statSync(dirname(ep.path)).mode & 0o777, 0o700);
    assert.equal(await roundTrip(ep), 'ping');
    await session.dispose('test');
    assert.equal(existsSync(dirname(ep.path)), false);
  });

  it('forward_tcp: true: a 127.0.0.1 port', async () => {
    const session = new LeaseSession('l2', { identity: 'vmhub-x-l2', external_id: 'x' }, template({ forward_tcp: true }), provider, undefined);
    const ep = await session.lease.forward(5555);
    assert.equal(ep.host, '127.0.0.1');
    assert.equal(await roundTrip(ep), 'ping');
    await session.dispose('test');
  });
});
