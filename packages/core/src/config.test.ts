import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.ts';
import { resolveGuestPath } from './paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('core: configuration', () => {
  it('fills defaults with no file', () => {
    const c = loadConfig({ env: { XDG_CONFIG_HOME: dir } });
    assert.equal(c.instance, 'local');
    assert.equal(c.leases.max_lifetime_seconds, 86400);
    assert.equal(c.source, null);
  });
  it('reads the file and lets env override', () => {
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ instance: 'lab', leases: { default_ttl_seconds: 120 }, policy: { deny_tools: ['vm_exec'] } }));
    const c = loadConfig({ env: { VMHUB_CONFIG: file, VMHUB_INSTANCE: 'ci', VMHUB_DB: '/tmp/x.db' } });
    assert.equal(c.instance, 'ci');
    assert.equal(c.db, '/tmp/x.db');
    assert.equal(c.leases.default_ttl_seconds, 120);
    assert.deepEqual(c.policy.deny_tools, ['vm_exec']);
  });
  it('names the bad key and the file', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ leases: { default_ttl_seconds: 'soon' } }));
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file } }), /bad\.json.*leases\.default_ttl_seconds/);
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: join(dir, 'missing.json') } }), /does not exist/);
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file, VMHUB_DEFAULT_TTL_SECONDS: 'x' } }), /must be an integer/);
  });
});

describe('core: guest paths', () => {
  it('resolves relative paths against home and refuses traversal', () => {
    assert.equal(resolveGuestPath('a/b.txt', '/home/user'), '/home/user/a/b.txt');
    assert.equal(resolveGuestPath('~/b.txt', '/home/user'), '/home/user/b.txt');
    assert.equal(resolveGuestPath('/etc/hosts', '/home/user'), '/etc/hosts');
    assert.throws(() => resolveGuestPath('../x', '/home/user'), /"\.\." segment/);
    assert.throws(() => resolveGuestPath('/a/../../etc', '/home/user'), /"\.\." segment/);
    assert.throws(() => resolveGuestPath('/a\0b', '/home/user'), /NUL/);
    assert.throws(() => resolveGuestPath('/', '/home/user'), /must name a file/);
  });
});
