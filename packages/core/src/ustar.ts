/**
 * Just enough tar for the archive APIs (Docker's put/get archive, the recording's Hugging Face
 * export): write one-file (or small) ustar archives, read the first regular file of an archive,
 * and rewrite owners in a tar stream on the fly. Long names use a PAX
 * `path` record; nothing else from PAX or GNU extensions is written.
 */
import { Transform, type TransformCallback } from 'node:stream';

const BLOCK = 512;

export interface TarEntry {
  name: string;
  data?: Buffer;
  type?: 'file' | 'dir' | 'symlink';
  /** Target of a symlink (at most 100 bytes). */
  linkname?: string;
  mode?: number;
  uid?: number;
  gid?: number;
  uname?: string;
  gname?: string;
  mtime?: number;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function checksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum;
}

function setChecksum(header: Buffer): void {
  header.write(octal(checksum(header), 7) + ' ', 148, 8, 'ascii');
}

function header(name: string, size: number, type: string, e: TarEntry): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write(octal((e.mode ?? (type === '5' ? 0o755 : 0o644)) & 0o7777, 8), 100, 8, 'ascii');
  h.write(octal(e.uid ?? 0, 8), 108, 8, 'ascii');
  h.write(octal(e.gid ?? 0, 8), 116, 8, 'ascii');
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(Math.floor(e.mtime ?? Date.now() / 1000), 12), 136, 12, 'ascii');
  h.write(type, 156, 1, 'ascii');
  if (e.linkname) h.write(e.linkname, 157, 100, 'utf8');
  h.write('ustar\0' + '00', 257, 8, 'ascii');
  h.write(e.uname ?? '', 265, 32, 'utf8');
  h.write(e.gname ?? '', 297, 32, 'utf8');
  setChecksum(h);
  return h;
}

function pad(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest);
}

function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body);
  let digits = String(len).length;
  while (String(len + digits).length !== digits) digits++;
  len += digits;
  return Buffer.from(`${len}${body}`);
}

/** A complete archive (with the two zero blocks at the end) holding `entries`. */
export function writeTar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const type = e.type === 'dir' ? '5' : e.type === 'symlink' ? '2' : '0';
    const data = type === '0' ? (e.data ?? Buffer.alloc(0)) : Buffer.alloc(0);
    let name = e.name.replace(/^\/+/, '');
    if (type === '2' && Buffer.byteLength(e.linkname ?? '') > 100) throw new Error(`symlink target of ${name} is over 100 bytes`);
    if (type === '5' && !name.endsWith('/')) name += '/';
    if (Buffer.byteLength(name) > 99) {
      const pax = paxRecord('path', name);
      parts.push(header('PaxHeader', pax.length, 'x', { name: 'PaxHeader' }), pax, pad(pax.length));
      name = name.slice(0, 99);
    }
    parts.push(header(name, data.length, type, e), data, pad(data.length));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function readString(buf: Buffer, start: number, len: number): string {
  const end = buf.indexOf(0, start);
  return buf.toString('utf8', start, end === -1 || end > start + len ? start + len : end);
}

function readOctal(buf: Buffer, start: number, len: number): number {
  const text = readString(buf, start, len).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

export interface TarHeader {
  name: string;
  size: number;
  type: string;
  mode: number;
  linkname: string;
}

export function parseHeader(block: Buffer): TarHeader | null {
  if (block.every((b) => b === 0)) return null;
  if (readOctal(block, 148, 8) !== checksum(block)) throw new Error('tar header checksum mismatch');
  const prefix = block.toString('ascii', 257, 262) === 'ustar' ? readString(block, 345, 155) : '';
  const name = readString(block, 0, 100);
  return {
    name: prefix ? `${prefix}/${name}` : name,
    size: readOctal(block, 124, 12),
    type: String.fromCharCode(block[156] || 48),
    mode: readOctal(block, 100, 8),
    linkname: readString(block, 157, 100),
  };
}

/** The first regular file in `tar`, or the link it is, or null when the archive holds none. */
export function readFirstEntry(tar: Buffer): { header: TarHeader; data: Buffer } | null {
  let off = 0;
  while (off + BLOCK <= tar.length) {
    const h = parseHeader(tar.subarray(off, off + BLOCK));
    if (!h) return null;
    off += BLOCK;
    const data = tar.subarray(off, off + h.size);
    off += h.size + pad(h.size).length;
    if (h.type === 'x' || h.type === 'g' || h.type === 'L' || h.type === 'K') continue;
    return { header: h, data };
  }
  return null;
}

/**
 * Rewrite uid/gid/uname/gname of every entry in a tar stream, so what lands in the guest belongs
 * to the desktop user whatever the host's owners were. Data blocks pass through untouched.
 */
export class TarOwnerRewriter extends Transform {
  readonly #owner: { uid: number; gid: number; uname: string; gname: string };
  #pending: Buffer = Buffer.alloc(0);
  #dataLeft = 0;

  constructor(owner: { uid: number; gid: number; uname: string; gname: string }) {
    super();
    this.#owner = owner;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let buf = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    const out: Buffer[] = [];
    while (buf.length > 0) {
      if (this.#dataLeft > 0) {
        const n = Math.min(this.#dataLeft, buf.length);
        out.push(buf.subarray(0, n));
        this.#dataLeft -= n;
        buf = buf.subarray(n);
        continue;
      }
      if (buf.length < BLOCK) break;
      const block = Buffer.from(buf.subarray(0, BLOCK));
      buf = buf.subarray(BLOCK);
      if (!block.every((b) => b === 0)) {
        const size = readOctal(block, 124, 12);
        const type = String.fromCharCode(block[156] || 48);
        if (type !== 'x' && type !== 'g' && type !== 'L' && type !== 'K') {
          block.fill(0, 108, 124);
          block.write(octal(this.#owner.uid, 8), 108, 8, 'ascii');
          block.write(octal(this.#owner.gid, 8), 116, 8, 'ascii');
          block.fill(0, 265, 329);
          block.write(this.#owner.uname, 265, 32, 'utf8');
          block.write(this.#owner.gname, 297, 32, 'utf8');
          setChecksum(block);
        }
        this.#dataLeft = size + pad(size).length;
      }
      out.push(block);
    }
    this.#pending = Buffer.from(buf);
    if (out.length) this.push(Buffer.concat(out));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#pending.length) this.push(this.#pending);
    done();
  }
}
