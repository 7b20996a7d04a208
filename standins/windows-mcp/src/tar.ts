// Reads a ustar/pax archive (what `tar.exe -x` in the guest unpacks for vm_clone_repo): regular
// files and directories, GNU/pax long names; other entry types are skipped.
export interface TarEntry {
  name: string;
  dir: boolean;
  data: Buffer;
}

const str = (b: Buffer, off: number, len: number) => {
  const s = b.subarray(off, off + len);
  const z = s.indexOf(0);
  return s.subarray(0, z < 0 ? s.length : z).toString('utf8');
};

export function readTar(buf: Buffer): TarEntry[] {
  const out: TarEntry[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h.every((x) => x === 0)) break;
    const size = parseInt(str(h, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(h[156] || 0x30);
    const prefix = str(h, 345, 155);
    let name = longName ?? (prefix ? `${prefix}/${str(h, 0, 100)}` : str(h, 0, 100));
    longName = undefined;
    const data = buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') { longName = str(data, 0, data.length); continue; }
    if (type === 'x') {
      const m = /\d+ path=([^\n]*)\n/.exec(data.toString('utf8'));
      if (m) longName = m[1];
      continue;
    }
    if (type === 'g') continue;
    name = name.replace(/^\.\//, '');
    if (!name || name === '.') continue;
    if (type === '5') out.push({ name: name.replace(/\/$/, ''), dir: true, data: Buffer.alloc(0) });
    else if (type === '0' || type === '\0' || type === '7') out.push({ name, dir: false, data: Buffer.from(data) });
  }
  return out;
}
