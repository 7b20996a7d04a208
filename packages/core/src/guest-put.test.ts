// The atomic put's shell pieces run by the real shells a guest may have (dash as /bin/sh, and
// busybox ash when installed) on a real directory: a writer whose stdin ends early (its server
// was killed mid-put) leaves the old file and no temporary one; a whole put replaces it.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PUT_APPEND_SH, PUT_COMMIT_SH, PUT_CREATE_SH, PUT_FILE_SH, putTempPath } from './guest-put.ts';

const shells: string[][] = [['/bin/sh']];
if (spawnSync('busybox', ['true']).status === 0) shells.push(['busybox', 'sh']);

const root = mkdtempSync(join(tmpdir(), 'vmhub-guest-put-'));
after(() => rmSync(root, { recursive: true, force: true }));

function sh(shell: string[], script: string, args: string[], stdin: Buffer = Buffer.alloc(0)): { code: number | null; stderr: string } {
  const r = spawnSync(shell[0]!, [...shell.slice(1), '-c', script, 'sh', ...args], { input: stdin });
  return { code: r.status, stderr: r.stderr.toString() };
}

const put = (shell: string[], path: string, data: Buffer, mode = '') => sh(shell, PUT_FILE_SH, [path, putTempPath(path), mode, String(data.length)], data);
const leftovers = (dir: string) => readdirSync(dir).filter((n) => n.includes('.vmhub-'));

describe('core: atomic put (guest-put.ts)', () => {
  it('names the temporary file beside the target, with at most 32 bytes of its name in whole characters', () => {
    assert.equal(putTempPath('/home/u/notes.txt', 'abc'), '/home/u/.notes.txt.vmhub-abc');
    assert.equal(putTempPath('/x', 'abc'), '/.x.vmhub-abc');
    const t = putTempPath(`/d/${'é'.repeat(100)}`);
    assert.match(t, /^\/d\/\.(é){16}\.vmhub-[0-9a-f]{12}$/);
  });

  for (const shell of shells) {
    describe(shell.join(' '), () => {
      const dir = join(root, shell.join('-'));
      mkdirSync(join(dir, 'adir'), { recursive: true });

      it('writes a new file (parents made), replaces an old one keeping its mode, applies a given mode', () => {
        const fresh = join(dir, 'new/deep/a.txt');
        assert.equal(put(shell, fresh, Buffer.from('one')).code, 0);
        assert.equal(readFileSync(fresh, 'utf8'), 'one');
        assert.equal(statSync(fresh).mode & 0o777, 0o644);
        const old = join(dir, 'old.txt');
        writeFileSync(old, 'before', { mode: 0o640 });
        assert.equal(put(shell, old, Buffer.from('after')).code, 0);
        assert.equal(readFileSync(old, 'utf8'), 'after');
        assert.equal(statSync(old).mode & 0o777, 0o640, 'the old file\'s bits');
        assert.equal(put(shell, old, Buffer.from('x'), '755').code, 0);
        assert.equal(statSync(old).mode & 0o777, 0o755);
        assert.deepEqual(leftovers(dir), []);
      });

      it('writes through a symlink; refuses a directory and a loop with the errno in the message', () => {
        writeFileSync(join(dir, 'real.txt'), 'r');
        symlinkSync('real.txt', join(dir, 'link'));
        assert.equal(put(shell, join(dir, 'link'), Buffer.from('via link')).code, 0);
        assert.equal(readlinkSync(join(dir, 'link')), 'real.txt', 'the link stays a link');
        assert.equal(readFileSync(join(dir, 'real.txt'), 'utf8'), 'via link');
        const d = put(shell, join(dir, 'adir'), Buffer.from('x'));
        assert.notEqual(d.code, 0);
        assert.match(d.stderr, /Is a directory/);
        symlinkSync('loop-b', join(dir, 'loop-a'));
        symlinkSync('loop-a', join(dir, 'loop-b'));
        const l = put(shell, join(dir, 'loop-a'), Buffer.from('x'));
        assert.notEqual(l.code, 0);
        assert.match(l.stderr, /too many levels of symbolic links|symbolic link loop/i);
        assert.deepEqual(leftovers(dir), []);
        assert.deepEqual(readdirSync(join(dir, 'adir')), [], 'nothing was moved into the directory');
      });

      it('a writer whose stdin ends early (the server died mid-put) leaves the old content and no temporary file', async () => {
        const path = join(dir, 'big.bin');
        writeFileSync(path, 'the old content');
        const data = Buffer.alloc(8 * 1024 * 1024, 7);
        const child = spawn(shell[0]!, [...shell.slice(1), '-c', PUT_FILE_SH, 'sh', path, putTempPath(path), '', String(data.length)], { stdio: ['pipe', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => { stderr += d; });
        child.stdin.write(data.subarray(0, data.length / 2));
        child.stdin.end();
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        assert.notEqual(code, 0);
        assert.match(stderr, new RegExp(`vmhub-file: EIO read got ${data.length / 2} of ${data.length} bytes`));
        assert.equal(readFileSync(path, 'utf8'), 'the old content');
        assert.deepEqual(leftovers(dir), []);
      });

      it('in parts: create, append, commit (with a default mode for a new file); a failed commit removes the temporary file', () => {
        const path = join(dir, 'parts.bin');
        const tmp = putTempPath(path);
        assert.equal(sh(shell, PUT_CREATE_SH, [path, tmp], Buffer.from('ab')).code, 0);
        assert.equal(sh(shell, PUT_CREATE_SH, [path, tmp], Buffer.from('ab')).code === 0, false, 'never over an existing temporary file');
        assert.equal(sh(shell, PUT_APPEND_SH, [tmp], Buffer.from('cd')).code, 0);
        assert.ok(!existsSync(path), 'nothing at the path before the commit');
        assert.equal(sh(shell, PUT_COMMIT_SH, [tmp, path, '', '4', '600']).code, 0);
        assert.equal(readFileSync(path, 'utf8'), 'abcd');
        assert.equal(statSync(path).mode & 0o777, 0o600);
        const tmp2 = putTempPath(path);
        sh(shell, PUT_CREATE_SH, [path, tmp2], Buffer.from('xyz'));
        const short = sh(shell, PUT_COMMIT_SH, [tmp2, path, '', '9']);
        assert.notEqual(short.code, 0);
        assert.equal(readFileSync(path, 'utf8'), 'abcd');
        assert.deepEqual(leftovers(dir), []);
      });
    });
  }
});
