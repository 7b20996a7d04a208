// One-shot clients (issue 28): a client that writes its calls and closes the server's stdin — a
// shell pipeline, or the MCP Inspector CLI, which closes stdin after every call — used to kill
// provisioning: the lease ended `failed` ("This operation was aborted") and its container lingered
// until the reaper's orphan sweep. Now the server answers the calls in flight, lets provisioning
// finish, then exits; SIGTERM still stops it at once and leaves the lease to the reaper, which
// fails it and destroys its machine once its claim lapses. The BUILT server on raw stdio: JSON-RPC
// lines in, stdin closed right after them; a real Docker debian-x11 lease where a container is
// at stake, the conformance fake provider for the timing cases.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { Store } from '@vmhub/store';
import { BIN, connect, defaultTemplates, machineBox, sandbox } from './harness.ts';

const run = promisify(execFile);
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The built server on raw stdio: `lines` written, then stdin closed at once (a shell pipeline) or,
 * with `closeAtOnce` false, when the test calls endStdin() (the Inspector CLI: after the answer).
 */
class OneShot {
  readonly child: ChildProcessWithoutNullStreams;
  readonly answers: any[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  stderr = '';
  #buf = '';

  constructor(configFile: string, lines: unknown[], closeAtOnce = true) {
    this.child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), VMHUB_CONFIG: configFile, VMHUB_LOG_LEVEL: 'info' } });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.#buf += d;
      let nl: number;
      while ((nl = this.#buf.indexOf('\n')) !== -1) {
        this.answers.push(JSON.parse(this.#buf.slice(0, nl)));
        this.#buf = this.#buf.slice(nl + 1);
      }
    });
    this.child.stderr.on('data', (d) => { this.stderr += d; });
    this.child.stdin.write(lines.map((l) => JSON.stringify(l) + '\n').join(''));
    if (closeAtOnce) this.endStdin();
  }

  endStdin(): void {
    this.child.stdin.end();
  }

  /** The answer to request `id`, once it arrived (or undefined once the server exited without it). */
  async answer(id: number, ms = 30_000): Promise<any> {
    const end = Date.now() + ms;
    let gone = false;
    void this.exited.then(() => { gone = true; });
    for (;;) {
      const found = this.answers.find((a) => a.id === id);
      if (found || gone || Date.now() > end) return found;
      await sleep(20);
    }
  }
}

/** What the Inspector CLI writes for one call: initialize, initialized, tools/call (id 2). */
function oneCall(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): unknown[] {
  return [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'one-shot', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } },
  ];
}

async function withStore<T>(db: string, f: (store: Store) => Promise<T>): Promise<T> {
  const store = new Store({ path: db });
  try { return await f(store); } finally { await store.close(); }
}

describe('stdin closed with provisioning in flight (real Docker, debian-x11)', () => {
  const box = machineBox('stdin', 'sc');
  const { instance, db, configFile } = box;
  // framebuffer off: nothing here is about the screen.
  box.write({ providers: { docker: { framebuffer: false } } });
  const containers = async (name: string) => (await run('docker', ['ps', '-a', '--filter', `name=^${name}$`, '--format', '{{.Names}} {{.State}}'])).stdout.trim();
  after(() => box.end());

  for (const how of ['once create answered (the Inspector CLI)', 'right after the request (a pipeline)']) it(`vm_lease_create, stdin closed ${how}: the server stays until the lease is ready, then exits; released, no container is left`, { timeout: 240_000 }, async () => {
    const inspector = how.includes('Inspector');
    const server = new OneShot(configFile, oneCall('vm_lease_create', { template: 'debian-x11', ttl_seconds: 600 }), !inspector);
    const created = await server.answer(2, 60_000);
    if (inspector) server.endStdin();
    assert.ok(created?.result && !created.result.isError, `create answered: ${JSON.stringify(created)} ${server.stderr}`);
    const lease = created.result.structuredContent;
    assert.ok(['provisioning', 'starting'].includes(lease.status), JSON.stringify(lease));
    const name = `vmhub-${instance}-${lease.lease_id}`;

    const exit = await server.exited;
    assert.equal(exit.code, 0, server.stderr);
    // What the server left behind is a ready lease, not a failed one, with no claim of a dead process.
    const row = await withStore(db, (s) => s.getLease(lease.lease_id));
    assert.equal(row?.status, 'ready', `${JSON.stringify(row)}\n${server.stderr}`);
    assert.equal(row?.error_code, null);
    assert.equal(row?.claimed_by, null);
    assert.match(server.stderr, /stdin closed: finishing the calls in flight and the leases being provisioned/);
    const ready = await withStore(db, (s) => s.listEvents({ lease_id: lease.lease_id, kind: 'lease.ready' }));
    assert.equal(ready.length, 1);
    assert.ok(ready[0]!.at <= exit.at, 'the lease was ready before the server exited');
    assert.match(await containers(name), new RegExp(`^${name} running$`));

    // The next one-shot call (another server process, the same store) releases it.
    const released = new OneShot(configFile, oneCall('vm_lease_release', { lease_id: lease.lease_id }));
    const answer = await released.answer(2, 60_000);
    assert.equal(answer?.result?.structuredContent?.status, 'released', JSON.stringify(answer));
    assert.equal((await released.exited).code, 0);
    assert.equal(await containers(name), '', `no container named ${name} is left`);
  });
});

describe('stdin closed: calls in flight are answered; SIGTERM stops at once (fake provider)', () => {
  const box = sandbox({}, [...defaultTemplates(),
    { id: 'fake-3s', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 3000 } },
    { id: 'fake-60s', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', ready_timeout_seconds: 300, provider_options: { ready_delay_ms: 60_000 } },
  ]);
  after(() => box.cleanup());

  it('nothing in flight: the server exits at once', { timeout: 30_000 }, async () => {
    const server = new OneShot(box.configFile, oneCall('vm_list_templates', {}));
    assert.ok((await server.answer(2))?.result, server.stderr);
    const answered = Date.now();
    const exit = await server.exited;
    assert.equal(exit.code, 0);
    assert.ok(exit.at - answered < 2000, `exited ${exit.at - answered} ms after its answer`);
  });

  it('vm_lease_create {wait_seconds: 20} in flight when stdin closes: answered ready (with progress), then the server exits', { timeout: 60_000 }, async () => {
    const server = new OneShot(box.configFile, oneCall('vm_lease_create', { template: 'fake-3s', wait_seconds: 20 }, { progressToken: 'p1' }));
    const answer = await server.answer(2);
    assert.equal(answer?.result?.structuredContent?.status, 'ready', `${JSON.stringify(answer)}\n${server.stderr}`);
    assert.ok(server.answers.some((a) => a.method === 'notifications/progress' && a.params.progressToken === 'p1'), 'progress notifications were sent');
    assert.equal((await server.exited).code, 0);
    const session = await connect(box);
    try {
      assert.equal((await session.call('vm_lease_release', { lease_id: answer.result.structuredContent.lease_id })).structuredContent.status, 'released');
    } finally { await session.close(); }
  });

  it('SIGTERM while draining: the server exits at once; the lease is left to the reaper, which fails it and destroys its machine', { timeout: 90_000 }, async () => {
    // As the SDK's client transport closes (the Inspector CLI, Claude Desktop…): stdin ended once
    // the answer is in, SIGTERM 2 s later when the server is still there.
    const server = new OneShot(box.configFile, oneCall('vm_lease_create', { template: 'fake-60s' }), false);
    const created = await server.answer(2);
    server.endStdin();
    const leaseId: string = created.result.structuredContent.lease_id;
    // Still provisioning, stdin closed: the server is waiting for the lease.
    await sleep(2000);
    assert.equal(server.child.exitCode, null, `the server is still there, finishing the lease: ${server.stderr}`);
    const killedAt = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    assert.equal(exit.code, 0);
    assert.ok(exit.at - killedAt < 3000, `exited ${exit.at - killedAt} ms after SIGTERM`);

    // Not failed with an abort message beside a live machine: the lease is as the server left it,
    // its provisioning claim no longer renewed.
    const left = (await withStore(box.db, (s) => s.getLease(leaseId)))!;
    assert.equal(left.status, 'starting', JSON.stringify(left));
    assert.equal(left.error_code, null);
    assert.ok(left.claim_expires_at && left.claim_expires_at > Date.now(), 'the provisioning claim still holds for a while');
    const identity = left.identity;
    assert.ok(!(await readFakeLedger(box.fakeDir)).some((e) => e.op === 'destroy' && e.identity === identity), 'the server destroyed nothing');

    // The reaper before the claim lapsed leaves it alone; after it, fails it and destroys the machine.
    const reap = () => run(process.execPath, [REAPER, '--once'], { env: { ...process.env, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error' } }).catch((e: { code?: number }) => { if (e.code !== 1) throw e; });
    await reap();
    assert.equal((await withStore(box.db, (s) => s.getLease(leaseId)))!.status, 'starting');
    await sleep(left.claim_expires_at! - Date.now() + 500);
    await reap();
    const reaped = (await withStore(box.db, (s) => s.getLease(leaseId)))!;
    assert.equal(reaped.status, 'failed');
    assert.equal(reaped.error_code, 'PROVISION_FAILED');
    assert.match(reaped.error_message ?? '', /claim lapsed/);
    assert.ok((await readFakeLedger(box.fakeDir)).some((e) => e.op === 'destroy' && e.identity === identity), 'the reaper destroyed the machine');
  });
});
