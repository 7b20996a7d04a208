/**
 * Part of the GuestChannel contract, shared by every channel (docker, SSH, guest agents, …):
 * what a failed file operation in the guest means for the agent: an errno (from the in-guest
 * file script, or recognised in a coreutils/shell message) becomes a typed, non-retryable
 * VmhubError whose message names the GUEST path only — never a host path or an engine id.
 * glibc, musl and busybox spell some errors differently; all spellings are recognised.
 */
import { VmhubError, type ErrorCode } from './errors.ts';

const TEXTS: [RegExp, string][] = [
  // dash says "No such file" / "Directory nonexistent" for both ENOENT and ENOTDIR.
  [/no such file|directory nonexistent/i, 'ENOENT'],
  [/not a directory/i, 'ENOTDIR'],
  [/is a directory/i, 'EISDIR'],
  [/file ?name too long/i, 'ENAMETOOLONG'],
  [/too many levels of symbolic links|symbolic link loop/i, 'ELOOP'],
  [/permission denied/i, 'EACCES'],
  [/operation not permitted/i, 'EPERM'],
  [/read-only file system/i, 'EROFS'],
  [/no space left on device/i, 'ENOSPC'],
  [/quota exceeded/i, 'EDQUOT'],
  [/file exists/i, 'EEXIST'],
  [/text file busy/i, 'ETXTBSY'],
  [/file too large/i, 'EFBIG'],
];

/** The errno a coreutils/shell/agent error text names, if it names one this module knows. */
export function errnoFromText(text: string): string | undefined {
  for (const [re, name] of TEXTS) if (re.test(text)) return name;
  return undefined;
}

export type FsOp = 'write' | 'read' | 'unpack';

export interface FsErrorContext {
  op: FsOp;
  /** The guest path the agent named (file, or the directory for unpack). */
  path: string;
  /** The guest user whose rights the operation ran with. */
  user: string;
  /** Where it failed when not at `path` itself (a parent directory). */
  at?: string;
  /** Size and cap, for a file over the cap. */
  size?: number;
  cap?: number;
  source: string;
}

const VERB: Record<FsOp, string> = { write: 'write', read: 'read', unpack: 'unpack an archive into' };

/** The longest component of `path`, in bytes (Linux refuses names over 255). */
function longestName(path: string): number {
  return Math.max(0, ...path.split('/').map((p) => Buffer.byteLength(p)));
}

/** A typed error for `errno` (a name like "EISDIR"), or undefined for an errno this does not know. */
export function fsError(errno: string, c: FsErrorContext): VmhubError | undefined {
  const where = c.at && c.at !== c.path ? `${c.at} (on the way to ${c.path})` : c.path;
  const p = `[vmhub] [${c.source}] cannot ${VERB[c.op]} ${c.path}:`;
  const make = (code: ErrorCode, why: string): VmhubError => new VmhubError(code, `${p} ${why}`, { source: c.source, details: { path: c.path, errno, ...(c.at && c.at !== c.path ? { at: c.at } : {}) } });
  switch (errno) {
    case 'ENOENT':
      return c.op === 'read' && !c.at
        ? make('NOT_FOUND', 'no such file in the guest')
        : make('NOT_FOUND', `${where} does not exist (a dangling symbolic link?)`);
    case 'ENOTDIR':
    case 'EEXIST':
      return make('INVALID_REQUEST', `a component of ${where} is not a directory: pick another path`);
    case 'EISDIR':
      return make('INVALID_REQUEST', `${where} is a directory, not a file: give a file path${c.op === 'write' ? ' (the directory is left as it is)' : ''}`);
    case 'ENAMETOOLONG':
      return longestName(c.path) > 255
        ? make('INVALID_REQUEST', `file name longer than 255 bytes (${longestName(c.path)}): use a shorter name`)
        : make('INVALID_REQUEST', 'path too long or too deep for the guest: use a shorter path');
    case 'ELOOP':
      return make('INVALID_REQUEST', `too many levels of symbolic links at ${where} (a symlink loop?): fix the links or pick another path`);
    case 'EACCES':
    case 'EPERM':
      return make('POLICY_DENIED', `permission denied: guest user "${c.user}" may not ${c.op === 'read' ? 'read' : 'write'} ${where} (files are ${c.op === 'read' ? 'read' : 'written'} with that user's rights)`);
    case 'EROFS':
      return make('POLICY_DENIED', `${where} is on a read-only file system in the guest`);
    case 'ENOSPC':
    case 'EDQUOT':
      return make('INVALID_REQUEST', 'no space left in the guest (disk or quota full): free space in the guest, then retry');
    case 'ETXTBSY':
      return make('INVALID_REQUEST', `${where} is a program that is running: stop it first`);
    case 'EFBIG':
      return c.size !== undefined && c.cap !== undefined
        ? make('INVALID_REQUEST', `the file is ${c.size} bytes, over the cap of ${c.cap} bytes (max_bytes): raise the cap, or read a part of it with exec`)
        : make('INVALID_REQUEST', 'file too large for the guest\'s file system');
    case 'ENOTREG':
      return make('INVALID_REQUEST', `${where} is not a regular file (a device, pipe or socket): give a regular file`);
    default:
      return undefined;
  }
}
