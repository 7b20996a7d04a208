// Security: what agents typed and saw is the operator's alone (hardening issue, item 2). The built
// server, started with a permissive umask (022) and a state folder, screenshot folder and audit
// file it must create, leases a fake desktop, types, takes a screenshot and starts its reaper;
// then every file and folder it (or the reaper) made — the SQLite file and its -wal/-shm, the audit
// file, reaper.log, saved screenshots, recordings — is 0600 / 0700 (mode & 0o077 === 0). The store
// opened as a library, with no umask of vmhub's, makes its folders 0700 and its file 0600 too.
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { Store } from '@vmhub/store';
import { connect, defaultTemplates, waitReady, until } from './harness.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), 'vmhub-itest-modes-'));
const reapers = new Set<number>();
after(() => {
  for (const pid of reapers) { try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ } }
  rmSync(dir, { recursive: true, force: true });
});

/** Every path under `root` (itself excluded) with its permission bits. */
function modes(root: string): { path: string; mode: number; dir: boolean }[] {
  return readdirSync(root, { recursive: true }).map(String).map((rel) => {
    const st = lstatSync(join(root, rel));
    return { path: rel, mode: st.mode & 0o777, dir: st.isDirectory() };
  });
}
const shown = (list: { path: string; mode: number }[]) => list.map((m) => `${m.path} ${m.mode.toString(8).padStart(4, '0')}`).join('\n');

describe('security: files holding what agents did are private', () => {
  it('the server and its reaper make 0600 files and 0700 folders, whatever the umask they were started with', { timeout: 120_000 }, async (t) => {
    const previous = process.umask(0o022); // the child inherits it: the bins must set their own
    const state = join(dir, 'server', 'state', 'nested');
    const shots = join(dir, 'server', 'shots', 'nested');
    const audit = join(dir, 'server', 'audit.jsonl');
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ instance: 'modes', db: join(state, 'vmhub.db'), plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: join(dir, 'server', 'fake') } }, templates: defaultTemplates(), reaper: { autostart: true, interval_seconds: 1 } }));
    const s = await connect({ dir, instance: 'modes', db: join(state, 'vmhub.db'), fakeDir: '', configFile, cleanup: () => undefined }, { VMHUB_SCREENSHOT_DIR: shots, VMHUB_AUDIT_FILE: audit, VMHUB_LOG_LEVEL: 'info' });
    process.umask(previous);
    let live: ReturnType<typeof modes> = [];
    try {
      const lease = (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id as string;
      assert.equal((await waitReady(s, lease)).status, 'ready');
      await s.call('vm_type', { lease_id: lease, text: 'what the agent typed' });
      const shot = await s.call('vm_screenshot', { lease_id: lease });
      assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
      const pid = await until(() => /"msg":"reaper started for this store","pid":(\d+)/.exec(s.stderr())?.[1], `the reaper to start:\n${s.stderr()}`);
      reapers.add(Number(pid));
      await until(() => existsSync(join(state, 'reaper.log')) && /reaper ready/.test(readFileSync(join(state, 'reaper.log'), 'utf8')), 'the reaper to be ready');
      await until(() => existsSync(join(state, 'recordings', lease)) && readdirSync(join(state, 'recordings', lease)).some((f) => /\.(png|jpe?g|webp)$/.test(f)), 'the recording of the lease');
      await s.call('vm_lease_release', { lease_id: lease });
      await until(() => existsSync(audit) && /vm_lease_release/.test(readFileSync(audit, 'utf8')), 'the audit line of the release');
      // SQLite's -wal and -shm files exist while the store is open (the last close removes them).
      live = modes(join(dir, 'server'));
    } finally {
      await s.close();
    }
    await sleep(300);
    const made = [...live, ...modes(join(dir, 'server')).filter((m) => !live.some((l) => l.path === m.path))];
    const names = made.map((m) => m.path);
    for (const want of ['state', 'state/nested', 'state/nested/vmhub.db', 'state/nested/vmhub.db-wal', 'state/nested/vmhub.db-shm', 'state/nested/reaper.log', 'state/nested/recordings', 'shots', 'shots/nested', 'audit.jsonl']) {
      assert.ok(names.includes(want), `${want} was made (made:\n${shown(made)})`);
    }
    assert.ok(made.some((m) => m.path.startsWith('shots/nested/vm-')), 'a screenshot was saved');
    assert.ok(made.some((m) => /^state\/nested\/recordings\/[^/]+\/.+\.(png|jpe?g|webp)$/.test(m.path)), 'a recording frame was saved');
    t.diagnostic(`${made.length} paths made by the server and its reaper:\n${shown(made)}`);
    const open = made.filter((m) => (m.mode & 0o077) !== 0);
    assert.deepEqual(open, [], `readable or writable by others:\n${shown(open)}`);
  });

  it('the store opened as a library makes its folders 0700 and its file 0600, even under umask 022', async () => {
    const previous = process.umask(0o022);
    const db = join(dir, 'library', 'a', 'b', 'vmhub.db');
    let store: Store | undefined;
    try {
      store = new Store({ path: db });
      await store.ready();
      await store.countLeases({ status: ['ready'] });
      assert.ok(existsSync(`${db}-wal`), 'the store is in WAL mode');
      const wal = lstatSync(`${db}-wal`).mode & 0o777;
      assert.equal(wal & 0o077, 0, `the -wal file is ${wal.toString(8)}`);
    } finally {
      await store?.close();
      process.umask(previous);
    }
    const made = modes(join(dir, 'library'));
    assert.ok(made.some((m) => relative('a/b', m.path) === 'vmhub.db'), shown(made));
    assert.deepEqual(made.filter((m) => (m.mode & 0o077) !== 0), [], shown(made));
  });
});
