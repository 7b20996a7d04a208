/**
 * Files through the archive API: PUT/GET /containers/{id}/archive with tars this package writes
 * and reads itself. Sizes are checked before bytes move (HEAD stat) and again while they move.
 */
import { posix } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { VmhubError } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { readFirstEntry, TarOwnerRewriter, writeTar } from './ustar.ts';

const SOURCE = 'provider-docker';
const DIR_BIT = 2 ** 31;

export interface Owner {
  uid: number;
  gid: number;
  uname: string;
  gname: string;
}

interface PathStat {
  name: string;
  size: number;
  mode: number;
  linkTarget: string;
}

function archivePath(containerId: string): string {
  return `/containers/${encodeURIComponent(containerId)}/archive`;
}

async function stat(docker: DockerClient, containerId: string, path: string): Promise<PathStat | null> {
  const res = await docker.raw('HEAD', archivePath(containerId), { query: { path } });
  if (res.status === 404) return null;
  if (res.status >= 400) throw docker.httpError('HEAD', archivePath(containerId), res.status, res.body);
  const header = res.headers['x-docker-container-path-stat'];
  return JSON.parse(Buffer.from(String(header), 'base64').toString('utf8')) as PathStat;
}

/** Write `data` as `path` (its directory must exist; the caller creates it on NOT_FOUND). */
export async function putFileArchive(docker: DockerClient, containerId: string, path: string, data: Buffer, mode: number, owner: Owner): Promise<void> {
  const tar = writeTar([{ name: posix.basename(path), data, mode, ...owner }]);
  const res = await docker.raw('PUT', archivePath(containerId), { query: { path: posix.dirname(path), noOverwriteDirNonDir: true }, body: tar, headers: { 'Content-Type': 'application/x-tar' } });
  if (res.status >= 400) throw docker.httpError('PUT', archivePath(containerId), res.status, res.body);
}

export async function getFileArchive(docker: DockerClient, containerId: string, path: string, maxBytes: number): Promise<Buffer> {
  let target = path;
  for (let hop = 0; hop < 8; hop++) {
    const st = await stat(docker, containerId, target);
    if (!st) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no such file in the guest: ${path}`, { source: SOURCE, details: { path } });
    if (st.linkTarget) {
      target = posix.resolve(posix.dirname(target), st.linkTarget);
      continue;
    }
    if (st.mode >= DIR_BIT) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is a directory, not a file: give a file path (or fetch a tar with exec)`, { source: SOURCE, details: { path } });
    if (st.size > maxBytes) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is ${st.size} bytes, over the cap of ${maxBytes} bytes (max_bytes): raise the cap or fetch a part with exec`, { source: SOURCE, details: { path, size: st.size, cap: maxBytes } });
    }
    const res = await docker.stream('GET', archivePath(containerId), { query: { path: target } });
    const limit = st.size + 64 * 1024;
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of res) {
      total += (chunk as Buffer).length;
      if (total > limit) {
        res.destroy();
        throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} grew past the cap of ${maxBytes} bytes while it was read`, { source: SOURCE, details: { path, cap: maxBytes } });
      }
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    if ((res.statusCode ?? 0) === 404) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no such file in the guest: ${path}`, { source: SOURCE, details: { path } });
    if ((res.statusCode ?? 0) >= 400) throw docker.httpError('GET', archivePath(containerId), res.statusCode ?? 0, body);
    const entry = readFirstEntry(body);
    if (!entry) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] the daemon sent an empty archive for ${path}`, { source: SOURCE });
    if (entry.data.length > maxBytes) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is ${entry.data.length} bytes, over the cap of ${maxBytes} bytes`, { source: SOURCE, details: { path, cap: maxBytes } });
    return Buffer.from(entry.data);
  }
  throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path}: too many levels of symbolic links`, { source: SOURCE, details: { path } });
}

/** Stream a tar into `dir`, owners rewritten to `owner`, refusing more than `maxBytes`. */
export async function putArchiveStream(docker: DockerClient, containerId: string, dir: string, tar: Readable, owner: Owner, maxBytes: number): Promise<void> {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] archive for ${dir} is over the cap of ${maxBytes} bytes: send a smaller archive or raise the docker provider option max_archive_bytes`, { source: SOURCE, details: { dir, cap: maxBytes } }));
      else done(null, chunk);
    },
  });
  let streamError: unknown;
  const body = tar.on('error', (e) => { streamError = e; }).pipe(cap).on('error', (e) => { streamError = e; }).pipe(new TarOwnerRewriter(owner));
  let res;
  try {
    res = await docker.raw('PUT', archivePath(containerId), { query: { path: dir, noOverwriteDirNonDir: true }, body, headers: { 'Content-Type': 'application/x-tar' }, timeoutMs: 0 });
  } catch (err) {
    throw streamError ?? err;
  }
  if (streamError) throw streamError;
  if (res.status >= 400) throw docker.httpError('PUT', archivePath(containerId), res.status, res.body);
}
