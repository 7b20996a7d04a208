import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execa } from 'execa';
import { writeCpio } from './cpio.ts';

test('qemu: cpio newc archive lists with the cpio tool', async () => {
  const archive = writeCpio([
    { kind: 'dir', path: 'bin' },
    { kind: 'file', path: 'bin/hello', data: Buffer.from('hi\n'), mode: 0o755 },
    { kind: 'symlink', path: 'bin/sh', target: 'busybox' },
    { kind: 'chardev', path: 'dev/console', major: 5, minor: 1 },
  ]);
  assert.equal(archive.length % 4, 0);
  const r = await execa('cpio', ['-itv'], { input: archive });
  assert.match(r.stdout, /^drwxr-xr-x .* bin$/m);
  assert.match(r.stdout, /^-rwxr-xr-x .* 3 .* bin\/hello$/m);
  assert.match(r.stdout, /^lrwxrwxrwx .* bin\/sh -> busybox$/m);
  assert.match(r.stdout, /^crw------- .* 5,\s+1 .* dev\/console$/m);
});
