/**
 * docker: availability against a stand-in Engine API on a unix socket, counting what it is asked.
 * A present image costs one round trip (lease create asks this before every lease); a failure
 * asks the daemon why, and says it: an engine too old for the pinned API version is named.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { makeProvider, template } from './fixture.ts';

describe('docker: availability', () => {
  const sock = `/tmp/vmhub-engine-${randomUUID()}.sock`;
  const asked: string[] = [];
  let apiVersion = '1.41';
  let server: Server;

  before(async () => {
    server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      const [, version] = /^\/v(\d+\.\d+)\//.exec(req.url ?? '') ?? [];
      if (req.url === '/_ping') return void res.end('OK');
      if (version && Number(version) > Number(apiVersion)) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ message: `client version ${version} is too new. Maximum supported API version is ${apiVersion}` }));
      }
      if (req.url?.endsWith('/version')) return void res.end(JSON.stringify({ Version: '20.10.0', ApiVersion: apiVersion }));
      if (req.url?.includes('/images/vmhub/missing:000000000000/json')) { res.writeHead(404); return void res.end('{"message":"No such image"}'); }
      if (req.url?.includes('/images/')) return void res.end('{"Id":"sha256:0"}');
      res.writeHead(500);
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(sock, r));
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('a present image costs one request', async () => {
    asked.length = 0;
    const { provider } = makeProvider({ docker_host: `unix://${sock}` });
    assert.deepEqual(await provider.availability(template), { availability: 'available' });
    assert.deepEqual(asked, [`GET /v1.41/images/${template.golden}/json`]);
    await provider.close?.();
  });

  it('a missing image asks the daemon, then names the build command', async () => {
    asked.length = 0;
    const { provider } = makeProvider({ docker_host: `unix://${sock}` });
    const avail = await provider.availability({ ...template, golden: 'vmhub/missing:000000000000' });
    assert.deepEqual(avail, { availability: 'unavailable', reason: 'image vmhub/missing:000000000000 is not built: run `vmhub-server golden build missing`' });
    assert.deepEqual(asked, ['GET /v1.41/images/vmhub/missing:000000000000/json', 'GET /_ping', 'GET /version']);
    await provider.close?.();
  });

  it('an engine older than the pinned API version is named, with the fix', async () => {
    apiVersion = '1.40';
    try {
      const { provider } = makeProvider({ docker_host: `unix://${sock}` });
      const avail = await provider.availability(template);
      assert.equal(avail.availability, 'unavailable');
      assert.match(avail.reason!, /speaks API 1\.40, older than 1\.41: upgrade the engine/);
      await provider.close?.();
    } finally {
      apiVersion = '1.41';
    }
  });

  it('the real engine, asked with a pin newer than it speaks, is named too', async () => {
    const { provider } = makeProvider({ api_version: '1.99' });
    const status = await provider.status();
    assert.equal(status.ok, false);
    assert.match(status.reason!, /speaks API 1\.\d+, older than 1\.99: upgrade the engine/);
    const avail = await provider.availability(template);
    assert.equal(avail.reason, status.reason);
    await provider.close?.();
  });
});
