// `vmhub-server workspaces` through the BUILT binary on a store with no Docker machine needed:
// bad command lines exit 2 with the usage and change nothing; on an empty store `list` says so;
// `show` and `rm` of an unknown workspace exit 1 with NOT_FOUND; a workspace recorded for a
// provider that is not loaded is listed, and `rm` refuses it (CAPABILITY_UNAVAILABLE), keeping the
// row. The whole path with a real engine (list with bytes, rm removing the volume, rm refused
// while a lease holds it) is in workspaces-docker.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Store } from '@vmhub/store';
import { runBin, sandbox, type Sandbox } from './harness.ts';

let box: Sandbox;
before(() => { box = sandbox(); });
after(() => box.cleanup());

describe('vmhub-server workspaces', () => {
  it('bad command lines exit 2 with the usage', async () => {
    for (const args of [[], ['frob'], ['show'], ['rm', 'a', 'b'], ['list', 'x'], ['list', '--bogus'], ['show', 'a', '--principal', '']]) {
      const r = await runBin(box, ['workspaces', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /usage: vmhub-server workspaces list/);
    }
  });

  it('an empty store: list says so; show and rm of an unknown name are NOT_FOUND (exit 1)', async () => {
    const list = await runBin(box, ['workspaces', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout, 'no workspaces\n');
    for (const verb of ['show', 'rm']) {
      const r = await runBin(box, ['workspaces', verb, 'nope', '--json']);
      assert.equal(r.code, 1);
      assert.equal(JSON.parse(r.stdout).error.code, 'NOT_FOUND');
    }
  });

  it('a workspace of a provider not loaded here: listed, and rm refuses it and keeps the row', async () => {
    const store = new Store({ path: box.db });
    await store.addWorkspace({ id: '6f1c1a52-0000-4000-8000-000000000001', principal: 'carol', name: 'kept', provider: 'elsewhere', identity: `vmhub-${box.instance}-ws-6f1c1a52-0000-4000-8000-000000000001`, template: 't', path: '/home/user', created_at: Date.now() }, 'test');
    await store.close();
    const list = await runBin(box, ['workspaces', 'list', '--json']);
    assert.deepEqual(JSON.parse(list.stdout).workspaces.map((w: { principal: string; name: string }) => `${w.principal}/${w.name}`), ['carol/kept']);
    const rm = await runBin(box, ['workspaces', 'rm', 'kept', '--principal', 'carol']);
    assert.equal(rm.code, 1);
    assert.match(rm.stderr, /CAPABILITY_UNAVAILABLE: workspace "kept" lives on provider "elsewhere"/);
    const show = await runBin(box, ['workspaces', 'show', '6f1c1a52-0000-4000-8000-000000000001', '--json']);
    assert.equal(JSON.parse(show.stdout).state, 'ready', 'still there, still ready');
  });
});
