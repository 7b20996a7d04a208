import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readFirstEntry, TarOwnerRewriter, writeTar } from './ustar.ts';

describe('docker: ustar', () => {
  it('writes archives GNU tar extracts byte-exact, long names included', () => {
    const dir = mkdtempSync(`${tmpdir()}/vmhub-ustar-`);
    try {
      const long = `a/${'b'.repeat(150)}/c.bin`;
      const data = Buffer.from(Array.from({ length: 1500 }, (_, i) => i % 251));
      const tar = writeTar([{ name: 'x.txt', data: Buffer.from('hi\n'), mode: 0o600 }, { name: long, data }]);
      const r = spawnSync('tar', ['-x', '-C', dir], { input: tar });
      assert.equal(r.status, 0, r.stderr.toString());
      assert.equal(readFileSync(`${dir}/x.txt`, 'utf8'), 'hi\n');
      assert.equal(statSync(`${dir}/x.txt`).mode & 0o777, 0o600);
      assert.ok(readFileSync(`${dir}/${long}`).equals(data));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the first file of an archive GNU tar wrote', () => {
    const r = spawnSync('tar', ['-c', '-C', '/etc', 'hostname']);
    const entry = readFirstEntry(r.stdout);
    assert.equal(entry?.header.name, 'hostname');
    assert.ok(entry?.data.equals(readFileSync('/etc/hostname')));
  });

  it('rewrites owners in a stream split at awkward places', async () => {
    const tar = writeTar([{ name: 'f', data: Buffer.alloc(1000, 7), uid: 0, gid: 0 }, { name: 'd/', type: 'dir' }]);
    const out: Buffer[] = [];
    const pieces = [tar.subarray(0, 3), tar.subarray(3, 600), tar.subarray(600, 1100), tar.subarray(1100)];
    for await (const c of Readable.from(pieces).pipe(new TarOwnerRewriter({ uid: 1000, gid: 1001, uname: 'user', gname: 'grp' }))) out.push(c as Buffer);
    const listing = spawnSync('tar', ['-tv', '--numeric-owner'], { input: Buffer.concat(out) }).stdout.toString();
    assert.match(listing, /1000\/1001\s+1000 .* f\n/);
    assert.match(listing, /1000\/1001\s+0 .* d\/\n/);
  });
});
