/**
 * The fake provider's GuestChannel: a per-machine sandbox directory on the host stands in for
 * the guest filesystem, and exec runs the built-in commands of fake-exec.ts in-process. It keeps
 * every GuestChannel rule (argv only, caps, NOT_FOUND, no traversal) so adapters tested on it
 * behave as they will on a real channel.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { putTempPath, VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type PutFileOptions } from '@vmhub/core';
import { fakeEnv, fakeExec } from './fake-exec.ts';
import { hostPath } from './fake-sandbox.ts';
import { GUEST_HOME } from './fake-store.ts';
import { extractTar } from './fake-tar.ts';

const SOURCE = 'provider-fake';
/** Largest file or archive the fake channel accepts (64 MiB). */
export const FAKE_MAX_FILE_BYTES = 64 * 1024 * 1024;

let openChannels = 0;

/** FakeChannels made and not yet closed in this process (leak tests count them). */
export function openFakeChannels(): number {
  return openChannels;
}

export class FakeChannel implements GuestChannel {
  readonly home = GUEST_HOME;
  readonly root: string;
  #closed = false;

  constructor(root: string) {
    this.root = root;
    openChannels++;
  }

  #open(): void {
    if (this.#closed) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] channel used after close()`, { source: SOURCE });
    // Like a container removed under an open connection: every call fails (retryable, as the
    // engine's errors are), and only asking the provider tells the machine is gone.
    if (!existsSync(this.root)) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] the machine does not answer`, { source: SOURCE });
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.#open();
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== 'string')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] exec needs a non-empty argv of strings`, { source: SOURCE });
    const stdin = options.stdin === undefined ? Buffer.alloc(0) : Buffer.isBuffer(options.stdin) ? options.stdin : Buffer.from(options.stdin);
    return fakeExec(argv, {
      root: this.root, cwd: options.cwd ?? GUEST_HOME, stdin, env: fakeEnv(options.env),
      timeoutMs: options.timeoutMs ?? 30_000, maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  async putFile(path: string, data: Buffer, options: PutFileOptions = {}): Promise<void> {
    this.#open();
    return guestFs(path, () => this.#putFile(path, data, options));
  }

  async #putFile(path: string, data: Buffer, options: PutFileOptions): Promise<void> {
    if (data.length > FAKE_MAX_FILE_BYTES) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path}: ${data.length} bytes is over the channel's ${FAKE_MAX_FILE_BYTES}-byte cap`, { source: SOURCE });
    const host = await hostPath(this.root, path);
    const existing = await stat(host).catch(() => undefined);
    if (existing?.isDirectory()) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is a directory`, { source: SOURCE });
    await mkdir(dirname(host), { recursive: true });
    // Atomic, as the GuestChannel contract asks: a temporary sibling renamed over the file.
    const tmp = putTempPath(host);
    const mode = options.mode ?? (existing?.isFile() ? existing.mode : undefined);
    try {
      await writeFile(tmp, data, { flag: 'wx' });
      if (mode !== undefined) await chmod(tmp, mode & 0o777);
      await rename(tmp, host);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  async getFile(path: string, options: GetFileOptions = {}): Promise<Buffer> {
    this.#open();
    return guestFs(path, () => this.#getFile(path, options));
  }

  async #getFile(path: string, options: GetFileOptions): Promise<Buffer> {
    const host = await hostPath(this.root, path);
    const s = await stat(host).catch(() => undefined);
    if (!s) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${path}: no such file in the guest`, { source: SOURCE });
    if (s.isDirectory()) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is a directory, not a file`, { source: SOURCE });
    const max = Math.min(options.maxBytes ?? FAKE_MAX_FILE_BYTES, FAKE_MAX_FILE_BYTES);
    if (s.size > max) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is ${s.size} bytes, over the ${max}-byte cap (max_bytes)`, { source: SOURCE });
    return readFile(host);
  }

  async putArchive(dir: string, tar: Readable): Promise<void> {
    this.#open();
    await guestFs(dir, async () => extractTar(this.root, await hostPath(this.root, dir), tar, FAKE_MAX_FILE_BYTES));
  }

  async close(): Promise<void> {
    if (!this.#closed) openChannels--;
    this.#closed = true;
  }
}

/** What the guest's file system answered, as a typed error naming the guest path (never the host's). */
const FS_ERRORS: Record<string, [code: 'INVALID_REQUEST' | 'NOT_FOUND' | 'POLICY_DENIED', what: string]> = {
  ENAMETOOLONG: ['INVALID_REQUEST', 'a file name in it is longer than 255 bytes'],
  ELOOP: ['INVALID_REQUEST', 'it goes through a symbolic link loop'],
  EISDIR: ['INVALID_REQUEST', 'it is a directory'],
  ENOTDIR: ['INVALID_REQUEST', 'a part of it is not a directory'],
  ENOENT: ['NOT_FOUND', 'no such file or directory'],
  EACCES: ['POLICY_DENIED', 'permission denied for the desktop user'],
  EPERM: ['POLICY_DENIED', 'operation not permitted'],
  ENOSPC: ['INVALID_REQUEST', 'no space left on the guest\'s disk'],
};

async function guestFs<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const known = FS_ERRORS[(err as NodeJS.ErrnoException).code ?? ''];
    if (!known) throw err;
    const shown = path.length > 120 ? `${path.slice(0, 117)}...` : path;
    throw new VmhubError(known[0], `[vmhub] [${SOURCE}] ${shown}: ${known[1]}`, { source: SOURCE });
  }
}
