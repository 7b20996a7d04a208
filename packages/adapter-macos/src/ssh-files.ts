/**
 * Files over SFTP on the lease's SSH connection, with the SSH user's rights: byte-exact writes
 * (parents created, mode applied after the umask), reads bounded by a cap checked before any
 * byte moves, and failures typed in guest terms (core's fsError: the guest path only).
 */
import { posix } from 'node:path';
import type { SFTPWrapper, Stats } from 'ssh2';
import { fsError, type FsOp } from '@vmhub/core';
import { macError, SOURCE } from './errors.ts';
import type { SshLink } from './ssh-link.ts';

// SFTP status codes (draft-ietf-secsh-filexfer-02 §7): 2 no such file, 3 permission denied, 4 failure.
const ERRNO: Record<number, string> = { 2: 'ENOENT', 3: 'EACCES' };

function call<T>(fn: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
}

const stat = (sftp: SFTPWrapper, path: string) => call<Stats>((cb) => sftp.stat(path, cb)).catch(() => undefined);

async function typed(sftp: SFTPWrapper, err: unknown, op: FsOp, path: string, user: string) {
  const code = (err as { code?: number }).code;
  let errno = typeof code === 'number' ? ERRNO[code] : undefined;
  if (!errno) {
    // A generic failure: say what the path is, when it is something else than a file.
    const s = await stat(sftp, path);
    if (s?.isDirectory()) errno = 'EISDIR';
    else if (op === 'write') {
      const parent = await stat(sftp, posix.dirname(path));
      if (parent && !parent.isDirectory()) errno = 'ENOTDIR';
    }
  }
  return (errno && fsError(errno, { op, path, user, source: SOURCE })) || macError('INTERNAL', `cannot ${op} ${path} over SFTP: ${(err as Error).message}`, { cause: err });
}

/** mkdir -p over SFTP: each missing ancestor in turn. */
async function mkdirs(sftp: SFTPWrapper, dir: string, user: string, target: string): Promise<void> {
  const s = await stat(sftp, dir);
  if (s) {
    if (!s.isDirectory()) throw fsError('ENOTDIR', { op: 'write', path: target, user, at: dir, source: SOURCE })!;
    return;
  }
  if (dir !== '/') await mkdirs(sftp, posix.dirname(dir), user, target);
  await call<void>((cb) => sftp.mkdir(dir, (e) => cb(e, undefined))).catch(async (err) => {
    if ((await stat(sftp, dir))?.isDirectory()) return; // made meanwhile
    throw await typed(sftp, err, 'write', target, user);
  });
}

export async function sftpPut(link: SshLink, path: string, data: Buffer, mode: number | undefined, user: string): Promise<void> {
  const sftp = await link.sftp();
  await mkdirs(sftp, posix.dirname(path), user, path);
  try {
    await call<void>((cb) => sftp.writeFile(path, data, mode === undefined ? {} : { mode }, (e) => cb(e, undefined)));
    if (mode !== undefined) await call<void>((cb) => sftp.chmod(path, mode, (e) => cb(e, undefined)));
  } catch (err) {
    throw await typed(sftp, err, 'write', path, user);
  }
}

export async function sftpGet(link: SshLink, path: string, maxBytes: number, user: string): Promise<Buffer> {
  const sftp = await link.sftp();
  let s: Stats;
  try {
    s = await call<Stats>((cb) => sftp.stat(path, cb));
  } catch (err) {
    throw await typed(sftp, err, 'read', path, user);
  }
  if (s.isDirectory()) throw fsError('EISDIR', { op: 'read', path, user, source: SOURCE })!;
  if (s.size > maxBytes) {
    throw macError('INVALID_REQUEST', `${path} is ${s.size} bytes, over the cap of ${maxBytes} bytes: read it in parts (vm_get_file {offset, length}) or raise max_bytes`, { details: { path, size: s.size, cap: maxBytes } });
  }
  try {
    const data = await call<Buffer>((cb) => sftp.readFile(path, cb));
    if (data.length > maxBytes) throw macError('INVALID_REQUEST', `${path} grew past the cap of ${maxBytes} bytes while it was read`);
    return data;
  } catch (err) {
    if ((err as { source?: string }).source === SOURCE) throw err;
    throw await typed(sftp, err, 'read', path, user);
  }
}
