/**
 * putArchive for the fake guest: the stream is spooled to a file beside the sandbox, its entries
 * are listed with the host's `tar` (argv, no shell) and checked — absolute names, ".." segments,
 * hard links and symlinks pointing outside are refused — and only then extracted.
 */
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { VmhubError } from '@vmhub/core';
import { assertInside } from './fake-sandbox.ts';

const run = promisify(execFile);
const SOURCE = 'provider-fake';

function bad(reason: string): VmhubError {
  return new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] archive refused: ${reason}`, { source: SOURCE });
}

function checkName(name: string): void {
  if (name.startsWith('/')) throw bad(`entry "${name}" is absolute`);
  if (name.split('/').includes('..')) throw bad(`entry "${name}" contains ".."`);
}

export async function extractTar(root: string, hostDir: string, tar: Readable, maxBytes: number): Promise<void> {
  const spool = join(dirname(root), `upload-${process.pid}-${randomBytes(4).toString('hex')}.tar`);
  try {
    await pipeline(tar, createWriteStream(spool));
    if ((await stat(spool)).size > maxBytes) throw bad(`it is larger than ${maxBytes} bytes`);
    const { stdout } = await run('tar', ['-tv', '--numeric-owner', '-f', spool], { maxBuffer: 64 * 1024 * 1024 });
    const { stdout: names } = await run('tar', ['-t', '-f', spool], { maxBuffer: 64 * 1024 * 1024 });
    const lines = stdout.split('\n').filter(Boolean);
    names.split('\n').filter(Boolean).forEach((name, i) => {
      checkName(name);
      const line = lines[i] ?? '';
      if (line.startsWith('h')) throw bad(`entry "${name}" is a hard link`);
      if (line.startsWith('l')) {
        const target = line.slice(line.lastIndexOf(' -> ') + 4);
        if (target.startsWith('/') || target.split('/').includes('..')) throw bad(`symlink "${name}" points outside (${target})`);
      }
      if (!'-dl'.includes(line[0] ?? '-')) throw bad(`entry "${name}" is a device or special file`);
    });
    await mkdir(hostDir, { recursive: true });
    await assertInside(root, hostDir);
    await run('tar', ['-x', '--no-same-owner', '--no-same-permissions', '-f', spool, '-C', hostDir]);
  } catch (err) {
    if (VmhubError.is(err)) throw err;
    throw bad((err as Error).message.split('\n')[0] ?? 'tar failed');
  } finally {
    await rm(spool, { force: true });
  }
}
