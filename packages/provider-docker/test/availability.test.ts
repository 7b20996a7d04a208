/**
 * docker: availability against a stand-in Engine API on a unix socket, counting what it is asked.
 * A present image costs one round trip (lease create asks this before every lease); a failure
 * asks the daemon why, and says it: an engine too old for the pinned API version is named.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { goldenImageTag } from '../src/golden-build.ts';
import { makeProvider, template } from './fixture.ts';

/** The tag `golden build debian-x11` makes now, and the tags this stand-in engine does not have. */
const CURRENT = goldenImageTag('debian-x11');
const MISSING = new Set(['vmhub/debian-x11:000000000000', 'vmhub/missing:000000000000', 'myorg/desktop:2']);
/** An image whose golden runs sshd (label vmhub.ssh.port). */
const SSHD = 'vmhub-test/sshd:1';

describe('docker: availability', () => {
  const sock = `/tmp/vmhub-engine-${randomUUID()}.sock`;
  const asked: string[] = [];
  let apiVersion = '1.41';
  /** The body of the last POST /containers/create (the stand-in refuses it with 500). */
  let created: { Env?: string[] } | undefined;
  const createdEnv = (): string[] => created?.Env ?? [];
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
      if ([...MISSING].some((tag) => req.url?.includes(`/images/${tag}/json`))) { res.writeHead(404); return void res.end('{"message":"No such image"}'); }
      if ([SSHD, encodeURIComponent(SSHD)].some((name) => req.url?.includes(`/images/${name}/json`))) return void res.end(JSON.stringify({ Id: 'sha256:1', Config: { Labels: { 'vmhub.ssh.port': '22' } } }));
      if (req.url?.includes('/containers/create')) {
        let body = '';
        req.on('data', (d: Buffer) => { body += d; }).on('end', () => { created = JSON.parse(body); res.writeHead(500); res.end('{"message":"stand-in"}'); });
        return;
      }
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

  it('create reads the sshd label from what availability just read: no second look at the image', async () => {
    const tpl = { ...template, golden: SSHD };
    const request = (id: string) => ({ lease_id: id, identity: `vmhub-t-${id}`, template: tpl, signal: AbortSignal.timeout(10_000) });
    const { provider } = makeProvider({ docker_host: `unix://${sock}` });
    assert.deepEqual(await provider.availability(tpl), { availability: 'available' });
    asked.length = 0;
    created = undefined;
    await assert.rejects(provider.create(request('a')), /stand-in/);
    assert.equal(asked.filter((r) => r.includes('/images/')).length, 0, `create asked: ${asked.join(', ')}`);
    assert.ok(createdEnv().some((e) => /^VMHUB_SSH_AUTHORIZED_KEY=ssh-ed25519 /.test(e)), 'the lease key went into the container');
    await provider.close?.();
    // Without availability first, create looks at the image itself (and still finds sshd).
    const fresh = makeProvider({ docker_host: `unix://${sock}` }).provider;
    asked.length = 0;
    created = undefined;
    await assert.rejects(fresh.create(request('b')), /stand-in/);
    assert.deepEqual(asked.filter((r) => r.includes('/images/')), [`GET /v1.41/images/${encodeURIComponent(SSHD)}/json`]);
    assert.ok(createdEnv().some((e) => /^VMHUB_SSH_AUTHORIZED_KEY=ssh-ed25519 /.test(e)));
    await fresh.close?.();
  });

  it('a missing golden asks the daemon, then names the build command', async () => {
    asked.length = 0;
    MISSING.add(CURRENT);
    const { provider } = makeProvider({ docker_host: `unix://${sock}` });
    const avail = await provider.availability({ ...template, golden: CURRENT }).finally(() => MISSING.delete(CURRENT));
    assert.deepEqual(avail, { availability: 'unavailable', reason: `image ${CURRENT} is not built: run \`vmhub-server golden build debian-x11\`` });
    assert.deepEqual(asked, [`GET /v1.41/images/${CURRENT}/json`, 'GET /_ping', 'GET /version']);
    await provider.close?.();
  });

  it('a missing image that `golden build` does not make is never told to run it', async () => {
    const { provider } = makeProvider({ docker_host: `unix://${sock}` });
    // Another tag of a vmhub golden (an older manifest, a hand-edited hash): build makes the current one, not this.
    const old = await provider.availability({ ...template, golden: 'vmhub/debian-x11:000000000000' });
    assert.equal(old.availability, 'unavailable');
    assert.equal(old.reason, `image vmhub/debian-x11:000000000000 is not on the Docker host, and \`vmhub-server golden build debian-x11\` builds ${CURRENT} (this version's debian-x11), not this tag: set the template's golden to ${CURRENT} and build that, or load vmhub/debian-x11:000000000000 on the Docker host (docker load / docker pull)`);
    // A custom image, and a vmhub/ tag of no golden this package has.
    for (const tag of ['myorg/desktop:2', 'vmhub/missing:000000000000']) {
      const custom = await provider.availability({ ...template, golden: tag });
      assert.equal(custom.reason, `image ${tag} is not on the Docker host and is not a vmhub golden (\`vmhub-server golden build\` cannot make it): docker pull ${tag} (or build and tag it) on the Docker host`);
      assert.doesNotMatch(custom.reason!, /golden build [a-z]/);
    }
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
