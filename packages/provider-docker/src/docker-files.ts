/**
 * Files with the guest user's rights: putFile, getFile and putArchive run inside the container
 * AS THAT USER (through the channel's exec), so the guest's kernel resolves symlinks and checks
 * permissions for the user. The archive API is not used for files: it writes as root from the
 * host side, follows guest symlinks with root's rights and answers with host paths.
 *
 * With perl in the image (the exec helper needs it anyway) a small script (helper/file-ops.pl)
 * does the work and names the exact errno; without perl, `sh` + coreutils do, and the errno is
 * recognised from their message. Either way a failure is a typed error naming the guest path.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { VmhubError, type ExecOptions, type ExecResult } from '@vmhub/core';
import { errnoFromText, fsError, PUT_FILE_SH, putTempPath, type FsErrorContext, type FsOp } from '@vmhub/core';

const SOURCE = 'provider-docker';

/** How a file operation reaches the guest: the channel's exec (the helper when it runs). */
export type GuestExec = (argv: string[], options: ExecOptions) => Promise<ExecResult>;
/** An exec whose stdin is a stream (a plain docker exec: it has backpressure). */
export type GuestStreamExec = (argv: string[], options: Omit<ExecOptions, 'stdin'> & { stdin: Readable }) => Promise<ExecResult>;
export type FileTool = 'perl' | 'sh';

let script: string | undefined;
// Read on first use, not at import: loading the provider does no I/O.
const fileScript = (): string => (script ??= readFileSync(new URL('../helper/file-ops.pl', import.meta.url), 'utf8'));

// Fallbacks for images without perl. Failures end with exit 3 and the tool's own message.
// A put is atomic either way (core's guest-put.ts): a temporary sibling renamed over the file.
const GET_SH = 'if [ -d "$1" ]; then echo "vmhub-file: EISDIR open" >&2; exit 3; fi; if [ -e "$1" ] && [ ! -f "$1" ]; then echo "vmhub-file: ENOTREG open" >&2; exit 3; fi; exec cat -- "$1"';
const UNTAR_SH = 'mkdir -p -- "$1" || exit 3; exec tar -x --no-same-owner -C "$1" -f -';

/** A generous bound: 30 s plus 1 s per MiB moved. */
const budget = (bytes: number): number => 30_000 + Math.ceil(bytes / (1024 * 1024)) * 1000;

export interface FileCall {
  user: string;
  tool: FileTool;
}

/** The typed error for a failed file command, from its `vmhub-file:` line or its message. */
function failure(r: ExecResult, c: Omit<FsErrorContext, 'source'>, what: string): VmhubError {
  const stderr = r.stderr.toString('utf8');
  if (r.timed_out) return new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] ${what} ${c.path} did not finish in time`, { source: SOURCE, details: { path: c.path } });
  const line = /^vmhub-file: (\S+) (\S+)(?: (.*))?$/m.exec(stderr);
  let errno = line?.[1];
  const ctx: FsErrorContext = { ...c, source: SOURCE };
  if (line?.[2] === 'mkdir' && line[3]) ctx.at = line[3];
  if (line?.[3]?.startsWith('size ')) ctx.size = Number(line[3].slice(5));
  errno ??= errnoFromText(stderr);
  const typed = errno ? fsError(errno, ctx) : undefined;
  if (typed) return typed;
  if (r.exit_code === 127 || r.exit_code === 126) {
    return new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] cannot ${what} ${c.path}: a tool it needs is missing in the guest image: ${stderr.trim().slice(0, 200)}`, { source: SOURCE });
  }
  const why = r.exit_code === null ? 'the guest command was lost (the container stopped?)' : `exit ${r.exit_code}: ${stderr.trim().slice(0, 300)}`;
  return new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] cannot ${what} ${c.path} as ${c.user}: ${why}`, { source: SOURCE, details: { path: c.path } });
}

/**
 * Atomic (GuestChannel.putFile): the guest writes `.<name>.vmhub-<random>` beside the file and
 * renames it over the file only when exactly `data.length` bytes arrived — a server killed
 * mid-put leaves the file as it was.
 */
export async function putFileAsUser(exec: GuestExec, call: FileCall, path: string, data: Buffer, mode: number | undefined): Promise<void> {
  const m = mode === undefined ? '' : (mode & 0o7777).toString(8);
  const random = randomBytes(6).toString('hex');
  const argv = call.tool === 'perl'
    ? ['perl', '-e', fileScript(), 'put', path, m, String(data.length), random]
    : ['sh', '-c', PUT_FILE_SH, 'sh', path, putTempPath(path, random), m, String(data.length)];
  const r = await exec(argv, { user: call.user, cwd: '/', stdin: data, timeoutMs: budget(data.length), maxOutputBytes: 64 * 1024 });
  if (r.exit_code !== 0) throw failure(r, { op: 'write', path, user: call.user }, 'write');
}

export async function getFileAsUser(exec: GuestExec, call: FileCall, path: string, maxBytes: number): Promise<Buffer> {
  const argv = call.tool === 'perl' ? ['perl', '-e', fileScript(), 'get', path, String(maxBytes)] : ['sh', '-c', GET_SH, 'sh', path];
  // One cap covers both streams: room for the error line even when max_bytes is tiny.
  const r = await exec(argv, { user: call.user, cwd: '/', timeoutMs: budget(maxBytes), maxOutputBytes: Math.max(maxBytes + 1, 64 * 1024) });
  if (r.exit_code !== 0 && !(r.truncated && r.stdout.length > maxBytes)) throw failure(r, { op: 'read', path, user: call.user, cap: maxBytes }, 'read');
  if (r.stdout.length > maxBytes) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] cannot read ${path}: it is larger than the cap of ${maxBytes} bytes (max_bytes): raise the cap, or read a part of it with exec`, { source: SOURCE, details: { path, cap: maxBytes } });
  }
  return r.stdout;
}

/** Unpack a tar stream into `dir` as the user (GNU tar as non-root cannot give files away). */
export async function putArchiveAsUser(exec: GuestStreamExec, user: string, dir: string, tar: Readable, maxBytes: number): Promise<void> {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] archive for ${dir} is over the cap of ${maxBytes} bytes: send a smaller archive or raise the docker provider option max_archive_bytes`, { source: SOURCE, details: { dir, cap: maxBytes } }));
      else done(null, chunk);
    },
  });
  let sourceError: unknown;
  tar.on('error', (e) => { sourceError ??= e; cap.destroy(e); });
  const r = await exec(['sh', '-c', UNTAR_SH, 'sh', dir], { user, cwd: '/', stdin: tar.pipe(cap), timeoutMs: 10 * 60_000, maxOutputBytes: 64 * 1024 });
  if (sourceError) throw sourceError;
  if (r.exit_code !== 0) throw failure(r, { op: 'unpack' as FsOp, path: dir, user }, 'unpack an archive into');
}
