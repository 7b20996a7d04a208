/**
 * The coreutils of the default guest (see guest-shell.ts): each works on the VM's in-memory files
 * and fails the way GNU coreutils do when a file is missing.
 */
import { posix } from 'node:path';
import { runScript, ExitSignal, type Io, type ShellEnv } from './guest-shell.ts';

export const abs = (io: Io, p: string): string => posix.resolve(io.cwd, p);
const stripDashes = (a: string[]): string[] => a.filter((x, i) => !(x === '--' && a.indexOf('--') === i));
const operands = (a: string[]): string[] => stripDashes(a).filter((x, i, arr) => !x.startsWith('-') || arr.indexOf('--') >= 0 && i > arr.indexOf('--'));

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
    case 'mkdir':
    case 'chmod':
    case 'chown':
    case 'touch': {
      const ops = operands(args);
      const targets = prog === 'mkdir' || prog === 'touch' ? ops : ops.slice(1);
      for (const f of targets) {
        if (prog === 'touch' && !io.files.has(abs(io, f))) io.files.set(abs(io, f), Buffer.alloc(0));
        if ((prog === 'chmod' || prog === 'chown') && !io.files.has(abs(io, f))) return missing(io, prog, 'cannot access ', f);
      }
      return 0;
    }
    case 'rm':
      for (const f of operands(args)) {
        if (!io.files.delete(abs(io, f)) && !args.some((a) => /^-\w*f/.test(a))) return missing(io, 'rm', 'cannot remove ', f);
      }
      return 0;
    case 'cat': {
      const ops = operands(args);
      if (ops.length === 0) io.out.push(io.stdin);
      for (const f of ops) {
        const b = io.files.get(abs(io, f));
        if (!b) return missing(io, 'cat', '', f);
        io.out.push(b);
      }
      return 0;
    }
    case 'stat': {
      const fmtAt = args.indexOf('-c');
      const fmt = fmtAt >= 0 ? (args[fmtAt + 1] ?? '') : '%s';
      const f = operands(args.filter((_, i) => i !== fmtAt + 1 || fmtAt < 0))[0] ?? '';
      const b = io.files.get(abs(io, f));
      if (!b) return missing(io, 'stat', 'cannot statx ', f);
      io.out.push(Buffer.from(`${fmt.replace('%s', String(b.length)).replace('%n', f)}\n`));
      return 0;
    }
    case 'base64': {
      const decode = args.some((a) => a === '-d' || a === '--decode');
      const f = operands(args.filter((a, i) => !(args[i - 1] === '-w')))[0];
      const src = f === undefined ? io.stdin : io.files.get(abs(io, f));
      if (!src) return missing(io, 'base64', '', f ?? '');
      io.out.push(decode ? Buffer.from(src.toString('latin1').replace(/\s+/g, ''), 'base64') : Buffer.from(args.includes('0') ? src.toString('base64') : `${src.toString('base64')}\n`));
      return 0;
    }
    case 'test':
    case '[': {
      const a = prog === '[' ? args.slice(0, -1) : args;
      if (a.length === 2 && /^-[efs]$/.test(a[0]!)) {
        const b = io.files.get(abs(io, a[1]!));
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
      io.out.push(Buffer.from('root\n'));
      return 0;
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

