/**
 * Files vmhub runs (plugins) or obeys (the config file) must be as trusted as vmhub itself:
 * owned by the user running vmhub or by root, and writable by nobody else (no group or world
 * write bit). Whoever can write a plugin's file — or a folder holding it, where they could swap
 * it — runs code as vmhub (often root); whoever can write the config file can name such a
 * plugin. A symlink on the way must itself be owned by that user or root (its target is then
 * checked as the file). POSIX only: where the process has no uid (Windows) nothing is refused.
 */
import { lstatSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';

/** Why a path may not be trusted, and the command that fixes it. */
export interface Untrusted {
  path: string;
  /** "is writable by others (mode 0777)", "is owned by uid 1001, not …". */
  why: string;
  /** `chmod go-w <path>` or `chown <uid> <path>`. */
  fix: string;
}

/** The first problem of `path` (a missing path is none: whoever reads it reports that). */
export function untrustedPath(path: string, uid: number | undefined = process.geteuid?.()): Untrusted | undefined {
  if (uid === undefined) return undefined;
  const owner = (fileUid: number, link: boolean): Untrusted | undefined =>
    fileUid === uid || fileUid === 0 ? undefined : { path, why: `${link ? 'is a symlink that ' : ''}is owned by uid ${fileUid}, not by the user running vmhub (uid ${uid}) or root`, fix: `chown ${link ? '-h ' : ''}${uid} ${path}` };
  try {
    const link = lstatSync(path);
    if (link.isSymbolicLink()) {
      const bad = owner(link.uid, true);
      if (bad) return bad;
    }
    const st = statSync(path);
    const bad = owner(st.uid, false);
    if (bad) return bad;
    if ((st.mode & 0o022) !== 0) {
      const who = (st.mode & 0o020) !== 0 && (st.mode & 0o002) !== 0 ? 'its group and by others' : (st.mode & 0o020) !== 0 ? 'its group' : 'others';
      return { path, why: `is writable by ${who} (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')})`, fix: `chmod go-w ${path}` };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The first untrusted path among `file` and the folders holding it up to `top` (included). When
 * `top` does not hold `file`, only the file and its own folder are checked.
 */
export function untrustedChain(file: string, top: string, uid: number | undefined = process.geteuid?.()): Untrusted | undefined {
  const rel = relative(top, file);
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  const chain = [file];
  if (inside) for (let dir = file; dir !== top && dirname(dir) !== dir;) { dir = dirname(dir); chain.push(dir); }
  else chain.push(dirname(file));
  for (const path of chain) {
    const bad = untrustedPath(path, uid);
    if (bad) return bad;
  }
  return undefined;
}
