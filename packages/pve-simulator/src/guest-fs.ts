/**
 * The default guest's file rights: just enough of a Unix file system over the VM's in-memory
 * files for a provider to show that it writes and reads with the desktop user's rights. Files
 * have owners (absent = root); directories are the ones `mkdir` made plus every parent of a file;
 * `rootOnly` paths are root's alone: a directory there is unreachable below it for anyone else
 * (mode 700), a file is unreadable and unwritable (mode 600) but can be stat'ed. Names over
 * 255 bytes fail as the kernel does. Errors carry the glibc texts the real tools print.
 */

export const DEFAULT_ROOT_ONLY = ['/root', '/etc/shadow'];
/** The directories every guest starts with (owned by root). */
export const BASE_DIRS = ['/root', '/tmp', '/var/tmp', '/home', '/etc', '/srv', '/var', '/usr', '/opt', '/mnt'];
const WORLD_WRITABLE = ['/tmp', '/var/tmp'];

export interface GuestFs {
  files: Map<string, Buffer>;
  /** Owner user of a file or directory; absent = root. */
  owners: Map<string, string>;
  /** Directories made by `mkdir` (parents of files are directories too). */
  dirs: Set<string>;
  rootOnly: string[];
}

export type FsErr = 'EACCES' | 'EPERM' | 'EISDIR' | 'ENAMETOOLONG' | 'ENOENT' | 'ENOTDIR' | 'EEXIST';

export const ERR_TEXT: Record<FsErr, string> = {
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EISDIR: 'Is a directory',
  ENAMETOOLONG: 'File name too long',
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  EEXIST: 'File exists',
};

export function isDir(fs: GuestFs, p: string): boolean {
  if (p === '/' || fs.dirs.has(p)) return true;
  for (const k of fs.files.keys()) if (k.startsWith(`${p}/`)) return true;
  return false;
}

const tooLong = (p: string): boolean => p.split('/').some((c) => Buffer.byteLength(c) > 255) || Buffer.byteLength(p) > 4095;

/** Inside a root-only directory (every operation), or a root-only file itself (read and write). */
function denied(fs: GuestFs, user: string, p: string, op: 'stat' | 'read' | 'write'): boolean {
  if (user === 'root') return false;
  return fs.rootOnly.some((r) => p.startsWith(`${r}/`) || (p === r && op !== 'stat'));
}

/** A parent that is a file: the path goes through it. */
function throughFile(fs: GuestFs, p: string): boolean {
  const parts = p.split('/').filter(Boolean);
  for (let i = 1; i < parts.length; i++) if (fs.files.has(`/${parts.slice(0, i).join('/')}`)) return true;
  return false;
}

export function checkStat(fs: GuestFs, user: string, p: string): FsErr | undefined {
  if (tooLong(p)) return 'ENAMETOOLONG';
  if (denied(fs, user, p, 'stat')) return 'EACCES';
  if (throughFile(fs, p)) return 'ENOTDIR';
  if (!fs.files.has(p) && !isDir(fs, p)) return 'ENOENT';
  return undefined;
}

export function checkRead(fs: GuestFs, user: string, p: string): FsErr | undefined {
  const e = checkStat(fs, user, p);
  if (e) return e;
  if (denied(fs, user, p, 'read')) return 'EACCES';
  if (isDir(fs, p)) return 'EISDIR';
  return undefined;
}

export function checkWrite(fs: GuestFs, user: string, p: string): FsErr | undefined {
  if (tooLong(p)) return 'ENAMETOOLONG';
  if (denied(fs, user, p, 'write')) return 'EACCES';
  if (throughFile(fs, p)) return 'ENOTDIR';
  if (isDir(fs, p)) return 'EISDIR';
  const owner = fs.owners.get(p) ?? 'root';
  if (user !== 'root' && fs.files.has(p) && owner !== user) return 'EACCES';
  // Root's writes stay as lenient as the simulator always was (a missing parent is implied);
  // anyone else needs the parent to exist and to be theirs (or a sticky world-writable /tmp).
  if (user === 'root') return undefined;
  const parent = p.slice(0, p.lastIndexOf('/')) || '/';
  if (!isDir(fs, parent)) return 'ENOENT';
  if ((fs.owners.get(parent) ?? 'root') !== user && !WORLD_WRITABLE.includes(parent)) return 'EACCES';
  return undefined;
}

/** Write as `user` (checked by the caller); a new file belongs to the writer, an old one keeps its owner. */
export function writeFile(fs: GuestFs, user: string, p: string, data: Buffer): void {
  if (!fs.files.has(p)) fs.owners.set(p, user);
  fs.files.set(p, data);
}

/** `mkdir -p` as `user`: every missing component is made and owned by the user. */
export function mkdirP(fs: GuestFs, user: string, p: string): { err: FsErr; at: string } | undefined {
  const parts = p.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const d = `/${parts.slice(0, i).join('/')}`;
    if (tooLong(d)) return { err: 'ENAMETOOLONG', at: d };
    if (fs.files.has(d)) return { err: i === parts.length ? 'EEXIST' : 'ENOTDIR', at: d };
    if (isDir(fs, d)) {
      if (denied(fs, user, `${d}/x`, 'stat') && i < parts.length) return { err: 'EACCES', at: `${d}/${parts[i]}` };
      continue;
    }
    const parent = `/${parts.slice(0, i - 1).join('/')}`;
    if (denied(fs, user, d, 'write') || (user !== 'root' && (fs.owners.get(parent) ?? 'root') !== user && !WORLD_WRITABLE.includes(parent))) return { err: 'EACCES', at: d };
    fs.dirs.add(d);
    fs.owners.set(d, user);
  }
  return undefined;
}
