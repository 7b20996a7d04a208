// An in-memory Windows file system: drive-letter paths, `\` separators (`/` accepted), names
// compared case-insensitively but kept as first written — what FileSystem and the PowerShell
// cmdlets see. Nothing touches the host's disk.

interface Entry {
  path: string;
  data?: Buffer; // absent: a directory
  mtime: Date;
}

export class FsError extends Error {
  readonly code: 'ENOENT' | 'EISDIR' | 'ENOTDIR' | 'EEXIST' | 'ENOTEMPTY' | 'EINVAL';
  constructor(code: FsError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

const key = (p: string) => p.toLowerCase();

export class WinFs {
  private entries = new Map<string, Entry>();

  readonly home: string;

  constructor(home: string) {
    this.home = home;
    for (const d of ['C:\\', 'C:\\Windows', 'C:\\Windows\\System32', 'C:\\Users', home, `${home}\\Desktop`, `${home}\\Documents`, `${home}\\Downloads`, 'C:\\Temp']) this.mkdir(d);
    this.write(`${home}\\Documents\\readme.txt`, Buffer.from('Stand-in desktop for vmhub tests.\r\n'));
  }

  /** Absolute, normalised (`\`, no `.`/`..`, no trailing `\` except the root). Relative → against `base`. */
  resolve(p: string, base = this.home): string {
    let s = p.replace(/\//g, '\\').trim();
    if (/^[A-Za-z]:$/.test(s)) s += '\\';
    if (!/^[A-Za-z]:\\/.test(s)) s = s.startsWith('\\') ? `${base.slice(0, 2)}${s}` : `${base}\\${s}`;
    const [drive, ...rest] = s.split('\\');
    const out: string[] = [];
    for (const part of rest) {
      if (part === '' || part === '.') continue;
      if (part === '..') out.pop();
      else out.push(part);
    }
    return out.length ? `${drive.toUpperCase()}\\${out.join('\\')}` : `${drive.toUpperCase()}\\`;
  }

  private parent(p: string): string | undefined {
    const i = p.lastIndexOf('\\');
    if (i < 0 || p.endsWith(':\\')) return undefined;
    return i === 2 ? p.slice(0, 3) : p.slice(0, i);
  }

  private get(p: string): Entry | undefined {
    return this.entries.get(key(this.resolve(p)));
  }

  /** Files by their path as first written. */
  get files(): Map<string, Buffer> {
    const m = new Map<string, Buffer>();
    for (const e of this.entries.values()) if (e.data) m.set(e.path, e.data);
    return m;
  }

  exists(p: string): boolean {
    return this.get(p) !== undefined;
  }

  isDir(p: string): boolean {
    const e = this.get(p);
    return e !== undefined && !e.data;
  }

  stat(p: string): { path: string; dir: boolean; size: number; mtime: Date } | undefined {
    const e = this.get(p);
    return e && { path: e.path, dir: !e.data, size: e.data?.length ?? 0, mtime: e.mtime };
  }

  read(p: string): Buffer {
    const e = this.get(p);
    if (!e) throw new FsError('ENOENT', `Cannot find path '${this.resolve(p)}' because it does not exist.`);
    if (!e.data) throw new FsError('EISDIR', `Access to the path '${e.path}' is denied.`);
    return e.data;
  }

  mkdir(p: string): void {
    const abs = this.resolve(p);
    const e = this.entries.get(key(abs));
    if (e?.data) throw new FsError('EEXIST', `An item with the specified name ${abs} already exists.`);
    if (e) return;
    const parent = this.parent(abs);
    if (parent) this.mkdir(parent);
    this.entries.set(key(abs), { path: abs, mtime: new Date() });
  }

  write(p: string, data: Buffer, opts: { append?: boolean; mkdirs?: boolean } = {}): number {
    const abs = this.resolve(p);
    const e = this.entries.get(key(abs));
    if (e && !e.data) throw new FsError('EISDIR', `Access to the path '${e.path}' is denied.`);
    const parent = this.parent(abs);
    if (parent && !this.isDir(parent)) {
      if (!opts.mkdirs) throw new FsError('ENOENT', `Could not find a part of the path '${abs}'.`);
      this.mkdir(parent);
    }
    const next = opts.append && e?.data ? Buffer.concat([e.data, data]) : Buffer.from(data);
    this.entries.set(key(abs), { path: e?.path ?? abs, data: next, mtime: new Date() });
    return next.length;
  }

  /** Names directly inside a directory (files and directories), sorted as Get-ChildItem does (dirs first). */
  list(p: string): string[] {
    const abs = this.resolve(p);
    if (!this.isDir(abs)) return [];
    const prefix = key(abs.endsWith('\\') ? abs : `${abs}\\`);
    const kids = [...this.entries.entries()].filter(([k]) => k.startsWith(prefix) && k.length > prefix.length && !k.slice(prefix.length).includes('\\'));
    const name = (e: Entry) => e.path.slice(e.path.lastIndexOf('\\') + 1);
    const dirs = kids.filter(([, e]) => !e.data).map(([, e]) => name(e)).sort((a, b) => a.localeCompare(b));
    const files = kids.filter(([, e]) => e.data).map(([, e]) => name(e)).sort((a, b) => a.localeCompare(b));
    return [...dirs, ...files];
  }

  remove(p: string, recursive = false): void {
    const abs = this.resolve(p);
    const e = this.entries.get(key(abs));
    if (!e) throw new FsError('ENOENT', `Cannot find path '${abs}' because it does not exist.`);
    if (!e.data) {
      const prefix = key(`${abs}\\`);
      const inside = [...this.entries.keys()].filter((k) => k.startsWith(prefix));
      if (inside.length && !recursive) throw new FsError('ENOTEMPTY', `The directory is not empty. : '${abs}'`);
      for (const k of inside) this.entries.delete(k);
    }
    this.entries.delete(key(abs));
  }

  rename(from: string, to: string, overwrite = true): void {
    const a = this.resolve(from);
    const b = this.resolve(to);
    const e = this.entries.get(key(a));
    if (!e) throw new FsError('ENOENT', `Could not find file '${a}'.`);
    if (this.entries.has(key(b)) && !overwrite) throw new FsError('EEXIST', `Cannot create a file when that file already exists. : '${b}'`);
    const prefix = key(`${a}\\`);
    for (const [k, v] of [...this.entries.entries()]) {
      if (k === key(a) || k.startsWith(prefix)) {
        this.entries.delete(k);
        const np = b + v.path.slice(a.length);
        this.entries.set(key(np), { ...v, path: np });
      }
    }
  }

  copy(from: string, to: string): void {
    const data = this.read(from);
    this.write(to, data);
  }

  /** Every path under `dir` (recursive) whose name matches a `*`/`?` glob. */
  search(dir: string, pattern: string, recursive: boolean): string[] {
    const abs = this.resolve(dir);
    const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
    const prefix = key(abs.endsWith('\\') ? abs : `${abs}\\`);
    return [...this.entries.values()]
      .filter((e) => key(e.path).startsWith(prefix) && (recursive || !e.path.slice(prefix.length).includes('\\')))
      .filter((e) => re.test(e.path.slice(e.path.lastIndexOf('\\') + 1)))
      .map((e) => e.path)
      .sort();
  }
}
