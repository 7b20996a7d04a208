// The first minutes with the Docker engine down (DOCKER_HOST at a unix socket that does not
// exist: the real engine, which other tests use, is never stopped). Every answer says the engine
// is down and how to start it; none says a golden is missing or gives the VM-capability hint.
// And every printing command ends quietly when its reader goes away (`golden status | head`).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { BIN, connect, errorCode, sandbox } from './harness.ts';

const SOCKET = `/tmp/vmhub-no-docker-${randomUUID()}.sock`;
const box = sandbox();
after(() => box.cleanup());
const env = { PATH: process.env.PATH ?? '', HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error', DOCKER_HOST: `unix://${SOCKET}` };
const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env });
const ENGINE_DOWN = new RegExp(`Docker daemon not reachable at ${SOCKET} \\(ENOENT\\)`);

describe('server: the Docker engine is down', () => {
  it('doctor says it cannot tell whether a golden is built, and to start the engine — not "not built → golden build"', () => {
    const r = run(['doctor']);
    const golden = r.stdout.split('\n').find((l) => /golden\s+debian-x11:/.test(l));
    assert.ok(golden, r.stdout);
    assert.match(golden!, /^✖ golden\s+debian-x11: cannot tell whether it is built: /);
    assert.match(golden!, ENGINE_DOWN);
    assert.match(golden!, /→ fix: start it \(dockerd\) or set DOCKER_HOST$/);
    assert.doesNotMatch(r.stdout, /not built \(\?\)|golden build debian-x11/);
  });

  it('golden status says unknown, with why, not missing', () => {
    const r = run(['golden', 'status', 'debian-x11']);
    assert.equal(r.status, 0, r.stderr);
    const [name, state, ref, provider] = r.stdout.trim().split('\t');
    assert.deepEqual([name, state, provider], ['debian-x11', 'unknown', '@vmhub/provider-docker']);
    assert.match(ref!, ENGINE_DOWN);
  });

  it('vm_lease_create: CAPABILITY_UNAVAILABLE whose hint says the provider is down and how to start it', async () => {
    const s = await connect(box, { DOCKER_HOST: env.DOCKER_HOST });
    try {
      const r = await s.call('vm_lease_create', { template: 'debian-x11' });
      assert.equal(errorCode(r), 'CAPABILITY_UNAVAILABLE');
      const e = r.structuredContent;
      assert.match(e.message, ENGINE_DOWN);
      assert.match(e.hint, /^The "docker" provider of this vmhub host is down \(Docker daemon not reachable at .*\): ask the operator to start it \(dockerd\) or set DOCKER_HOST; vm_health shows when it is back, then retry\./);
      assert.doesNotMatch(e.hint, /This VM cannot do that/);
      assert.equal(e.retryable, true);
      assert.equal(e.details.provider_down, true);
    } finally {
      await s.close();
    }
  });
});

describe('server: CLI commands whose reader goes away', () => {
  for (const args of [['golden', 'status'], ['doctor'], ['leases', 'list'], ['--help']]) {
    it(`${args.join(' ')} with its stdout closed exits 0 without a stack trace (| head)`, async () => {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...env, DOCKER_HOST: process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock' }, stdio: ['ignore', 'pipe', 'pipe'] });
      // The reader is gone before the first line: every write meets a closed pipe (EPIPE).
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d) => { stderr += d; });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /EPIPE|Unhandled 'error'|node:events/);
    });
  }
});
