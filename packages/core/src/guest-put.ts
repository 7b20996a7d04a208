/**
 * Part of the GuestChannel contract: putFile is atomic. The bytes are written to a temporary
 * sibling of the file (`.<up to 32 bytes of its name>.vmhub-<12 hex>`, same directory, so the
 * final rename is one rename(2)) and renamed over the path only once all of them arrived and
 * their count is the one sent. A reader — or a server killed mid-write, whose writer then sees
 * its stdin end early — never finds half a file at the path: the old content or the new.
 *
 * The shell pieces here are for channels whose writer is a POSIX shell in the guest (dash,
 * busybox ash, bash): positional arguments only, never agent text in the script. Failures exit
 * non-zero with the tools' own messages (or "<path>: Is a directory"), which errnoFromText
 * types; a short write says `vmhub-file: EIO read got N of M bytes`.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';

/** How much of the file's name its temporary sibling keeps (bytes, whole characters). */
const NAME_PART = 32;

/** The temporary sibling a put writes before renaming it over `path` (absolute guest path). */
export function putTempPath(path: string, random: string = randomBytes(6).toString('hex')): string {
  const dir = posix.dirname(path);
  let name = '';
  for (const ch of posix.basename(path)) {
    if (Buffer.byteLength(name + ch) > NAME_PART) break;
    name += ch;
  }
  return `${dir === '/' ? '' : dir}/.${name}.vmhub-${random}`;
}

/**
 * Finish a put: `sh -c PUT_COMMIT_SH sh TEMP PATH MODE SIZE [NEW_MODE]`. A symlink at PATH is
 * resolved (its target is replaced); a directory there is refused; TEMP must hold exactly SIZE
 * bytes; MODE (octal) is applied, or else an existing file's permission bits are kept, or else
 * NEW_MODE when given (a channel whose transport leaves no sensible mode); then TEMP is renamed
 * over the path. TEMP is removed whenever this fails.
 */
export const PUT_COMMIT_SH = [
  't=$1; p=$2; m=$3; n=$4',
  'trap \'rm -f -- "$t"\' EXIT',
  // A symlink is written through, as an in-place write would; a loop or dangling chain says why.
  // (The permission bits kept below are the last three octal digits: no set-id bit is copied.)
  'if [ -L "$p" ]; then q=$(readlink -f -- "$p") || { (: < "$p") 2>&1 | head -n 1 >&2; exit 3; }; p=$q; fi',
  'if [ -d "$p" ]; then echo "$p: Is a directory" >&2; exit 3; fi',
  's=$(wc -c < "$t") || exit 3',
  'if [ "$((s))" -ne "$n" ]; then echo "vmhub-file: EIO read got $((s)) of $n bytes" >&2; exit 3; fi',
  'if [ -n "$m" ]; then chmod "$m" "$t" || exit 3; elif [ -f "$p" ]; then o=$(stat -c %a -- "$p" 2>/dev/null) && case $o in ???*) o=${o#"${o%???}"} ;; esac && chmod "$o" "$t"; elif [ -n "$5" ]; then chmod "$5" "$t" || exit 3; fi',
  'mv -f -- "$t" "$p" || exit 3',
  'trap - EXIT',
].join('\n');

const PREPARE = [
  'umask 022; p=$1; t=$2',
  'd=${t%/*}; [ -n "$d" ] || d=/',
  'mkdir -p -- "$d" || exit 3',
  'if [ -d "$p" ]; then echo "$p: Is a directory" >&2; exit 3; fi',
].join('\n');
/** Never over an existing file (noclobber): a name in use is not this put's. */
const CREATE = '(set -C; exec cat > "$t") || exit 3';

/**
 * Start a put in parts: `sh -c PUT_CREATE_SH sh PATH TEMP` with the first part on stdin; the
 * parent directories are made and TEMP is created from stdin. Append the rest with
 * `sh -c PUT_APPEND_SH sh TEMP`, then run PUT_COMMIT_SH. The caller removes TEMP when a part
 * fails.
 */
export const PUT_CREATE_SH = `${PREPARE}\n${CREATE}`;

/** Append a part to TEMP: `sh -c PUT_APPEND_SH sh TEMP`. */
export const PUT_APPEND_SH = 'cat >> "$1"';

/** A whole put in one exec: `sh -c PUT_FILE_SH sh PATH TEMP MODE SIZE`, the bytes on stdin. */
export const PUT_FILE_SH = `${PREPARE}\ntrap 'rm -f -- "$t"' EXIT\n${CREATE}\nset -- "$2" "$1" "$3" "$4"\n${PUT_COMMIT_SH}`;
