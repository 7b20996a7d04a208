// A server closes its session to a lease's machine once no call has bound it for
// leases.session_idle_seconds (1 s here) — not while it still holds work there (a detached
// command) — and the next call opens a new one that maps image coordinates as the latest
// screenshot did (the mapping is the store's: lease_screens). Counted by vm_health's
// `sessions.open`, the effect by the fake desktop's click log. The BUILT server, fake provider.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, leaseReady, sandbox, type Sandbox, type Session } from './harness.ts';

/** The sweep runs every 5 s: a session idle past 1 s closes within about 6 s. */
const CLOSE_WITHIN_MS = 12_000;

describe('lease sessions close when idle', () => {
  let box: Sandbox;
  let s: Session;
  let lease = '';
  const open = async () => (await s.call('vm_health')).structuredContent.sessions.open as number;
  const until = async (what: string, ok: () => Promise<boolean>, ms = CLOSE_WITHIN_MS) => {
    for (const end = Date.now() + ms; !(await ok());) {
      assert.ok(Date.now() < end, `${what} within ${ms} ms`);
      await sleep(250);
    }
  };
  before(async () => {
    box = sandbox();
    s = await connect(box, { VMHUB_LEASE_SESSION_IDLE_SECONDS: '1' });
    await leaseReady(s, { template: 'fake-desktop' }, 60, (id) => { lease = id; });
  });
  after(async () => {
    if (lease) await s?.call('vm_lease_release', { lease_id: lease });
    await s?.close();
    box?.cleanup();
  });

  it('closed after a second without calls; the next call reopens it and maps the earlier zoom from the store', async (t) => {
    const zoom = await s.call('vm_screenshot', { lease_id: lease, region: { x: 200, y: 100, width: 200, height: 150 }, scale: 2 });
    assert.equal(zoom.structuredContent.scale, 2, JSON.stringify(zoom.structuredContent));
    assert.equal(await open(), 1);
    const t0 = Date.now();
    await until('the idle session closes', async () => (await open()) === 0);
    const closedAfter = Date.now() - t0;
    assert.equal((await s.call('vm_click', { lease_id: lease, x: 100, y: 60 })).isError, undefined);
    assert.equal(await open(), 1, 'the click opened a new session');
    const file = await s.call('vm_get_file', { lease_id: lease, path: '/.vmhub-desktop.json' });
    const desktop = JSON.parse(file.structuredContent.content ?? Buffer.from(file.structuredContent.content_base64, 'base64').toString()) as { clicks: { x: number; y: number }[] };
    const click = desktop.clicks.at(-1)!;
    assert.deepEqual([click.x, click.y], [250, 130], 'image (100, 60) of the zoom from (200, 100) at scale 2');
    t.diagnostic(`closed ${closedAfter} ms after the last call`);
  });

  it('kept open while a detached command runs, closed once it has ended', async () => {
    const started = await s.call('vm_exec', { lease_id: lease, shell: 'sleep 9; echo finished', detach: true });
    assert.equal(started.isError, undefined, JSON.stringify(started.structuredContent));
    const job = started.structuredContent.job as string;
    // Past the idle limit and a whole sweep interval (5 s): only the job keeps the session.
    await sleep(7000);
    assert.equal(await open(), 1, 'a running job holds the session 7 s past its last call');
    let r = await s.call('vm_exec', { lease_id: lease, job });
    for (const end = Date.now() + 15_000; r.structuredContent.running; r = await s.call('vm_exec', { lease_id: lease, job })) {
      assert.ok(Date.now() < end);
      await sleep(200);
    }
    assert.equal(r.structuredContent.stdout, 'finished\n');
    await until('the session closes once the job has ended', async () => (await open()) === 0);
  });
});
