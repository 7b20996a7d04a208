/**
 * The coreutils of the default guest (see guest-shell.ts): each works on the VM's in-memory files
 * with the running user's rights (guest-fs.ts) and fails the way GNU coreutils do — a missing
 * file, a denied one, a directory where a file was meant, a name over 255 bytes.
 * `runuser -u USER -- argv` runs argv as that user (root only, like the real one); `mv` moves
 * one file (a channel's atomic put renames its temporary file over the target). Permission bits
 * are only recorded: `chmod` (octal or `--reference=`) and `mkdir -m` set them, `mv` carries
 * them, `stat -c %a` shows them; access is still decided by owners alone (guest-fs.ts).
 */
import { posix } from 'node:path';
import { runScript, ExitSignal, type Io, type ShellEnv } from './guest-shell.ts';
import { checkRead, checkStat, checkWrite, ERR_TEXT, isDir, mkdirP, writeFile, type FsErr, type GuestFs } from './guest-fs.ts';

export const abs = (io: Io, p: string): string => posix.resolve(io.cwd, p);
export const fsOf = (io: Io): GuestFs => ({ files: io.files, owners: io.owners, dirs: io.dirs, rootOnly: io.rootOnly });

function fsFail(io: Io, prog: string, verb: string, f: string, err: FsErr): number {
  io.err.push(`${prog}: ${verb}'${f}': ${ERR_TEXT[err]}\n`);
  return 1;
}
const stripDashes = (a: string[]): string[] => a.filter((x, i) => !(x === '--' && a.indexOf('--') === i));
const operands = (a: string[]): string[] => stripDashes(a).filter((x, i, arr) => !x.startsWith('-') || arr.indexOf('--') >= 0 && i > arr.indexOf('--'));

/** An octal mode (`600`, `0700`); symbolic modes are not recorded. */
const octal = (m: string | undefined): number | undefined => (m !== undefined && /^[0-7]{1,4}$/.test(m) ? parseInt(m, 8) & 0o7777 : undefined);

export function missing(io: Io, prog: string, verb: string, f: string): number {
  io.err.push(`${prog}: ${verb}'${f}': No such file or directory\n`);
  return 1;
}

export function runCommand(argv: string[], io: Io, env: ShellEnv): number {
  const prog = posix.basename(argv[0] ?? '');
  const args = argv.slice(1);
  switch (prog) {
    case 'true':
    case ':':
      return 0;
    case 'false':
      return 1;
    case 'echo':
      io.out.push(Buffer.from(`${args.join(' ')}\n`));
      return 0;
    case 'printf':
      io.out.push(Buffer.from((args[0] ?? '').replace(/%s/g, () => args.splice(1, 1)[0] ?? '').replace(/\\n/g, '\n')));
      return 0;
    case 'mkdir': {
      const fs = fsOf(io);
      // -m MODE takes a value: not a directory to make.
      const m = args.indexOf('-m') >= 0 ? octal(args[args.indexOf('-m') + 1]) : undefined;
      for (const f of operands(args.filter((a, i) => args[i - 1] !== '-m'))) {
        const p = abs(io, f);
        const made = !isDir(fs, p);
        const e = mkdirP(fs, io.user, p);
        if (e) return fsFail(io, 'mkdir', 'cannot create directory ', e.at, e.err);
        if (made && m !== undefined) io.modes.set(p, m);
      }
      return 0;
    }
    case 'chmod':
    case 'chown':
    case 'touch': {
      const ops = operands(args);
      const ref = prog === 'chmod' ? args.find((a) => a.startsWith('--reference='))?.slice(12) : undefined;
      const targets = prog === 'touch' || ref !== undefined ? ops : ops.slice(1);
      const mode = ref !== undefined ? io.modes.get(abs(io, ref)) : prog === 'chmod' ? octal(ops[0]) : undefined;
      const fs = fsOf(io);
      for (const f of targets) {
        const p = abs(io, f);
        if (prog === 'touch') {
          const e = isDir(fs, p) ? undefined : checkWrite(fs, io.user, p);
          if (e) return fsFail(io, 'touch', 'cannot touch ', f, e);
          if (!io.files.has(p) && !isDir(fs, p)) writeFile(fs, io.user, p, Buffer.alloc(0));
          continue;
        }
        const e = checkStat(fs, io.user, p);
        if (e === 'ENOENT') return missing(io, prog, 'cannot access ', f);
        if (e) return fsFail(io, prog, 'cannot access ', f, e);
        if (io.user !== 'root' && (prog === 'chown' || (io.owners.get(p) ?? 'root') !== io.user)) return fsFail(io, prog, prog === 'chmod' ? 'changing permissions of ' : 'changing ownership of ', f, 'EPERM');
        if (prog === 'chown') io.owners.set(p, (ops[0] ?? 'root').split(':')[0]!);
        if (mode !== undefined) io.modes.set(p, mode);
      }
      return 0;
    }
    case 'rm':
      for (const f of operands(args)) {
        const p = abs(io, f);
        if (checkWrite(fsOf(io), io.user, p) === 'EACCES') return fsFail(io, 'rm', 'cannot remove ', f, 'EACCES');
        const gone = io.files.delete(p);
        if (gone) { io.owners.delete(p); io.modes.delete(p); }
        if (args.some((a) => /^-\w*r/.test(a))) {
          for (const k of [...io.files.keys()]) if (k.startsWith(`${p}/`)) { io.files.delete(k); io.owners.delete(k); io.modes.delete(k); }
          for (const d of [...io.dirs]) if (d === p || d.startsWith(`${p}/`)) { io.dirs.delete(d); io.owners.delete(d); io.modes.delete(d); }
          continue;
        }
        if (!gone && !args.some((a) => /^-\w*f/.test(a))) return missing(io, 'rm', 'cannot remove ', f);
      }
      return 0;
    case 'mv': {
      // `mv [-f] [--] SRC DST` of one file (what a channel's atomic put sends): the file keeps
      // its owner; the user needs the rights a write of DST takes (guest-fs.ts checkWrite).
      const [src, dst] = operands(args);
      if (src === undefined || dst === undefined) { io.err.push('mv: missing file operand\n'); return 1; }
      const from = abs(io, src);
      const to = abs(io, dst);
      const e = checkRead(fsOf(io), io.user, from);
      if (e === 'ENOENT') return missing(io, 'mv', 'cannot stat ', src);
      if (e) return fsFail(io, 'mv', 'cannot stat ', src, e);
      const w = checkWrite(fsOf(io), io.user, to);
      if (w) return fsFail(io, 'mv', `cannot move '${src}' to `, dst, w);
      io.files.set(to, io.files.get(from)!);
      io.owners.set(to, io.owners.get(from) ?? io.user);
      const bits = io.modes.get(from);
      if (bits === undefined) io.modes.delete(to);
      else io.modes.set(to, bits);
      io.files.delete(from);
      io.owners.delete(from);
      io.modes.delete(from);
      return 0;
    }
    case 'cat': {
      const ops = operands(args);
      if (ops.length === 0) io.out.push(io.stdin);
      for (const f of ops) {
        const e = checkRead(fsOf(io), io.user, abs(io, f));
        if (e === 'ENOENT') return missing(io, 'cat', '', f);
        if (e) return fsFail(io, 'cat', '', f, e);
        io.out.push(io.files.get(abs(io, f))!);
      }
      return 0;
    }
    case 'stat': {
      const fmtAt = args.indexOf('-c');
      const fmt = fmtAt >= 0 ? (args[fmtAt + 1] ?? '') : '%s';
      const f = operands(args.filter((_, i) => i !== fmtAt + 1 || fmtAt < 0))[0] ?? '';
      const p = abs(io, f);
      const e = checkStat(fsOf(io), io.user, p);
      if (e === 'ENOENT') return missing(io, 'stat', 'cannot statx ', f);
      if (e) return fsFail(io, 'stat', 'cannot statx ', f, e);
      const dir = isDir(fsOf(io), p);
      const b = io.files.get(p) ?? Buffer.alloc(0);
      const type = dir ? 'directory' : b.length === 0 ? 'regular empty file' : 'regular file';
      io.out.push(Buffer.from(`${fmt.replace('%s', String(dir ? 4096 : b.length)).replace('%n', f).replace('%F', type).replace('%U', io.owners.get(p) ?? 'root').replace('%a', (io.modes.get(p) ?? (dir ? 0o755 : 0o644)).toString(8))}\n`));
      return 0;
    }
    case 'base64': {
      const decode = args.some((a) => a === '-d' || a === '--decode');
      const f = operands(args.filter((a, i) => !(args[i - 1] === '-w')))[0];
      const e = f === undefined ? undefined : checkRead(fsOf(io), io.user, abs(io, f));
      if (e && e !== 'ENOENT') return fsFail(io, 'base64', '', f!, e);
      const src = f === undefined ? io.stdin : io.files.get(abs(io, f));
      if (!src) return missing(io, 'base64', '', f ?? '');
      io.out.push(decode ? Buffer.from(src.toString('latin1').replace(/\s+/g, ''), 'base64') : Buffer.from(args.includes('0') ? src.toString('base64') : `${src.toString('base64')}\n`));
      return 0;
    }
    case 'test':
    case '[': {
      const a = prog === '[' ? args.slice(0, -1) : args;
      if (a.length === 2 && /^-[efsd]$/.test(a[0]!)) {
        const p = abs(io, a[1]!);
        if (checkStat(fsOf(io), io.user, p)) return 1;
        const dir = isDir(fsOf(io), p);
        if (a[0] === '-d') return dir ? 0 : 1;
        if (a[0] === '-e') return 0;
        const b = io.files.get(p);
        return b && (a[0] !== '-s' || b.length > 0) ? 0 : 1;
      }
      if (a.length === 3 && a[1] === '=') return a[0] === a[2] ? 0 : 1;
      if (a.length === 1) return a[0] ? 0 : 1;
      return 2;
    }
    case 'sleep':
      io.durationMs += Math.min(Number(args[0] ?? 0) * 1000 || 0, 60_000);
      return 0;
    case 'whoami':
      io.out.push(Buffer.from(`${io.user}\n`));
      return 0;
    case 'runuser': {
      if (io.user !== 'root') { io.err.push('runuser: may not be used by non-root users\n'); return 1; }
      const at = args.indexOf('-u');
      const who = at >= 0 ? args[at + 1] : undefined;
      if (!who) { io.err.push('runuser: no user specified\n'); return 1; }
      let rest = args.filter((_, i) => i !== at && i !== at + 1);
      if (rest[0] === '--') rest = rest.slice(1);
      const as: Io = { ...io, user: who };
      try {
        return runCommand(rest, as, env);
      } finally {
        io.durationMs = as.durationMs;
      }
    }
    case 'sh':
    case 'bash':
    case 'dash': {
      try {
        if (args[0] !== '-c') return runScript(io.stdin.toString('utf8'), io, { vars: {}, args });
        return runScript(args[1] ?? '', io, { vars: {}, args: args.slice(3) });
      } catch (e) {
        if (e instanceof ExitSignal) return e.code;
        throw e;
      }
    }
    default:
      void env;
      io.out.push(Buffer.from(`${argv.join(' ')}\n`));
      return 0;
  }
}

