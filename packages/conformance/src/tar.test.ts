import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { it } from 'node:test';
import { makeTar } from './tar.ts';

it('makeTar writes a ustar archive the host tar reads', () => {
  const tar = makeTar([{ path: 'dir', type: 'dir' }, { path: 'dir/a.txt', data: 'hello', mode: 0o600 }, { path: 'link', type: 'symlink', target: 'dir/a.txt' }]);
  assert.equal(tar.length % 512, 0);
  const listing = execFileSync('tar', ['-tv', '-f', '-'], { input: tar }).toString().trim().split('\n');
  assert.match(listing[0]!, /^d.* dir\/$/);
  assert.match(listing[1]!, /^-rw-------.* 5 .* dir\/a\.txt$/);
  assert.match(listing[2]!, /^l.* link -> dir\/a\.txt$/);
  assert.equal(execFileSync('tar', ['-xO', '-f', '-', 'dir/a.txt'], { input: tar }).toString(), 'hello');
});

it('makeTar refuses names longer than ustar allows', () => {
  assert.throws(() => makeTar([{ path: 'x'.repeat(101), data: '' }]), /longer than 100 bytes/);
});
