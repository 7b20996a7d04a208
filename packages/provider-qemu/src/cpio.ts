/**
 * A minimal `newc` cpio writer for initramfs images. Written here (not by the cpio tool) so the
 * archive is byte-for-byte reproducible (mtime 0, fixed inode numbers) and needs no root for the
 * /dev/console node the kernel opens before init runs.
 */

export type CpioEntry =
  | { kind: 'dir'; path: string; mode?: number }
  | { kind: 'file'; path: string; data: Buffer; mode?: number }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'chardev'; path: string; major: number; minor: number; mode?: number };

const TYPE = { dir: 0o040000, file: 0o100000, symlink: 0o120000, chardev: 0o020000 } as const;

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}

function pad4(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}

function record(ino: number, mode: number, name: string, data: Buffer, rdev: [number, number] = [0, 0]): Buffer[] {
  const nameBytes = Buffer.from(`${name}\0`);
  const header = Buffer.from(
    '070701' + [ino, mode, 0, 0, 1, 0, data.length, 0, 0, rdev[0], rdev[1], nameBytes.length, 0].map(hex).join(''),
    'ascii',
  );
  return [header, nameBytes, pad4(header.length + nameBytes.length), data, pad4(data.length)];
}

export function writeCpio(entries: CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  let ino = 1;
  for (const e of entries) {
    const path = e.path.replace(/^\/+/, '');
    switch (e.kind) {
      case 'dir':
        parts.push(...record(ino++, TYPE.dir | (e.mode ?? 0o755), path, Buffer.alloc(0)));
        break;
      case 'file':
        parts.push(...record(ino++, TYPE.file | (e.mode ?? 0o644), path, e.data));
        break;
      case 'symlink':
        parts.push(...record(ino++, TYPE.symlink | 0o777, path, Buffer.from(e.target)));
        break;
      case 'chardev':
        parts.push(...record(ino++, TYPE.chardev | (e.mode ?? 0o600), path, Buffer.alloc(0), [e.major, e.minor]));
        break;
    }
  }
  parts.push(...record(0, 0, 'TRAILER!!!', Buffer.alloc(0)));
  return Buffer.concat(parts);
}
