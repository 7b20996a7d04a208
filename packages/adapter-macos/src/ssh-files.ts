/**
 * Files over SFTP on the lease's SSH connection, with the SSH user's rights: byte-exact, atomic
 * writes (parents created, a temporary sibling renamed over the file, mode applied after the umask), reads bounded by a cap checked before any
 * byte moves, and failures typed in guest terms (core's fsError: the guest path only).
 */
import { posix } from 'node:path';
import type { SFTPWrapper, Stats } from 'ssh2';
import { fsError, putTempPath, type FsOp } from '@vmhub/core';
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

/** The file a write lands in: a symlink at `path` is followed (40 links at most), as opening it would. */
async function landing(sftp: SFTPWrapper, path: string, user: string): Promise<string> {
  let p = path;
  for (let i = 0; i < 40; i++) {
    const l = await call<Stats>((cb) => sftp.lstat(p, cb)).catch(() => undefined);
    if (!l?.isSymbolicLink()) return p;
    const to = await call<string>((cb) => sftp.readlink(p, cb));
    p = to.startsWith('/') ? to : posix.join(posix.dirname(p), to);
  }
  throw fsError('ELOOP', { op: 'write', path, user, source: SOURCE })!;
}

/**
 * Atomic (GuestChannel.putFile): the bytes go to a temporary sibling (core's putTempPath),
 * renamed over the file (posix-rename@openssh.com) once written, so a connection or server lost
 * mid-write leaves the file as it was. The mode is the one given, else an existing file's.
 */
export async function sftpPut(link: SshLink, path: string, data: Buffer, mode: number | undefined, user: string): Promise<void> {
  const sftp = await link.sftp();
  await mkdirs(sftp, posix.dirname(path), user, path);
  const old = await stat(sftp, path);
  if (old?.isDirectory()) throw fsError('EISDIR', { op: 'write', path, user, source: SOURCE })!;
  const target = await landing(sftp, path, user);
  const tmp = putTempPath(target);
  const bits = mode ?? (old?.isFile() ? old.mode & 0o777 : undefined);
  try {
    await call<void>((cb) => sftp.writeFile(tmp, data, bits === undefined ? { flag: 'wx' } : { flag: 'wx', mode: bits }, (e) => cb(e, undefined)));
    if (bits !== undefined) await call<void>((cb) => sftp.chmod(tmp, bits, (e) => cb(e, undefined)));
    await call<void>((cb) => sftp.ext_openssh_rename(tmp, target, (e) => cb(e, undefined)));
  } catch (err) {
    await call<void>((cb) => sftp.unlink(tmp, (e) => cb(e, undefined))).catch(() => undefined);
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
