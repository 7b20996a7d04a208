/** makeTar(): a small ustar archive in memory, for feeding cloneRepo/putArchive in tests. */
export interface TarEntry {
  path: string;
  data?: Buffer | string;
  /** Default 0o644 for files, 0o755 for directories. */
  mode?: number;
  type?: 'file' | 'dir' | 'symlink';
  /** Link target, for type 'symlink'. */
  target?: string;
}

function header(name: string, size: number, mode: number, type: '0' | '2' | '5', link = ''): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`makeTar: path "${name}" is longer than 100 bytes`);
  const h = Buffer.alloc(512);
  const field = (value: string, offset: number, length: number) => h.write(value, offset, length, 'utf8');
  const octal = (value: number, offset: number, length: number) => field(value.toString(8).padStart(length - 1, '0') + '\0', offset, length);
  field(name, 0, 100);
  octal(mode, 100, 8); octal(0, 108, 8); octal(0, 116, 8);
  octal(size, 124, 12); octal(Math.floor(Date.now() / 1000), 136, 12);
  h.fill(' ', 148, 156);
  field(type, 156, 1);
  field(link, 157, 100);
  field('ustar\0', 257, 6); field('00', 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  field(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  return h;
}

export function makeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    if (e.type === 'dir') {
      parts.push(header(e.path.endsWith('/') ? e.path : `${e.path}/`, 0, e.mode ?? 0o755, '5'));
      continue;
    }
    if (e.type === 'symlink') {
      parts.push(header(e.path, 0, e.mode ?? 0o777, '2', e.target ?? ''));
      continue;
    }
    const data = typeof e.data === 'string' ? Buffer.from(e.data) : e.data ?? Buffer.alloc(0);
    parts.push(header(e.path, data.length, e.mode ?? 0o644, '0'), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
