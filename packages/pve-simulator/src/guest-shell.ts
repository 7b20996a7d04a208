/**
 * The default guest behind agent `exec`: nothing runs on the host. A handful of coreutils and a
 * small POSIX-sh subset work on the VM's in-memory files, enough for what a provider's agent
 * channel sends (mkdir -p, cat/rm/chmod/chown/stat/base64, `sh -c` scripts with positional
 * parameters, shift, cd, exec, redirections, pipes, && || ;). Unknown programs echo their argv.
 */
import { posix } from 'node:path';
import type { ExecRequest, ExecResult } from './model.ts';

interface Io {
  files: Map<string, Buffer>;
  cwd: string;
  stdin: Buffer;
  out: Buffer[];
  err: string[];
  durationMs: number;
}

interface Seg {
  text: string;
  q: 'none' | 'single' | 'double';
}
type Tok = { op: string } | { word: Seg[] };

class ExitSignal {
  readonly code: number;
  constructor(code: number) {
    this.code = code;
  }
}

export function guestShellExec(req: ExecRequest): ExecResult {
  const io: Io = { files: req.files, cwd: '/root', stdin: Buffer.from(req.input ?? ''), out: [], err: [], durationMs: 0 };
  let code: number;
  try {
    code = runCommand(req.argv, io, { vars: {}, args: [] });
  } catch (e) {
    code = e instanceof ExitSignal ? e.code : 2;
  }
  return { exitcode: code, stdout: Buffer.concat(io.out), stderr: io.err.join(''), durationMs: io.durationMs };
}

const abs = (io: Io, p: string): string => posix.resolve(io.cwd, p);
const stripDashes = (a: string[]): string[] => a.filter((x, i) => !(x === '--' && a.indexOf('--') === i));
const operands = (a: string[]): string[] => stripDashes(a).filter((x, i, arr) => !x.startsWith('-') || arr.indexOf('--') >= 0 && i > arr.indexOf('--'));

function missing(io: Io, prog: string, verb: string, f: string): number {
  io.err.push(`${prog}: ${verb}'${f}': No such file or directory\n`);
  return 1;
}

interface ShellEnv {
  vars: Record<string, string>;
  args: string[];
}

function runCommand(argv: string[], io: Io, env: ShellEnv): number {
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

function tokenize(script: string): Tok[] {
  const toks: Tok[] = [];
  let word: Seg[] | undefined;
  const push = (text: string, q: Seg['q']): void => {
    word ??= [];
    const last = word[word.length - 1];
    if (last && last.q === q && q === 'none') last.text += text;
    else word.push({ text, q });
  };
  const end = (): void => {
    if (word) toks.push({ word });
    word = undefined;
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === "'") {
      const j = script.indexOf("'", i + 1);
      push(script.slice(i + 1, j < 0 ? undefined : j), 'single');
      i = j < 0 ? script.length : j;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      while (j < script.length && script[j] !== '"') {
        if (script[j] === '\\' && /["\\$`]/.test(script[j + 1] ?? '')) j++;
        text += script[j++];
      }
      push(text, 'double');
      i = j;
    } else if (c === '\\') {
      push(script[++i] ?? '', 'single');
    } else if (/\s/.test(c)) {
      end();
      if (c === '\n') toks.push({ op: ';' });
    } else if (c === '#' && !word) {
      while (i < script.length && script[i] !== '\n') i++;
    } else if (/[;&|<>]/.test(c)) {
      end();
      const two = script.slice(i, i + 2);
      const op = ['&&', '||', '>>'].includes(two) ? two : c;
      toks.push({ op });
      i += op.length - 1;
    } else push(c, 'none');
  }
  end();
  return toks;
}

function expand(word: Seg[], env: ShellEnv, status: number): string[] {
  const out: string[] = [''];
  for (const seg of word) {
    if (seg.q === 'single') {
      out[out.length - 1] += seg.text;
      continue;
    }
    const parts = seg.text.split(/(\$\{[A-Za-z_]\w*\}|\$(?:[0-9@#?]|[A-Za-z_]\w*))/);
    for (const p of parts) {
      const m = /^\$\{?([0-9@#?]|[A-Za-z_]\w*)\}?$/.exec(p);
      if (!m) {
        out[out.length - 1] += p;
        continue;
      }
      const name = m[1] ?? '';
      if (name === '@') {
        const list = env.args;
        if (list.length === 0) continue;
        out[out.length - 1] += list[0];
        for (const a of list.slice(1)) out.push(a);
      } else if (name === '#') out[out.length - 1] += String(env.args.length);
      else if (name === '?') out[out.length - 1] += String(status);
      else if (/^\d$/.test(name)) out[out.length - 1] += name === '0' ? 'sh' : (env.args[Number(name) - 1] ?? '');
      else out[out.length - 1] += env.vars[name] ?? '';
    }
  }
  // an unquoted empty "$@" leaves no word
  return word.length === 1 && word[0]!.text === '$@' && env.args.length === 0 ? [] : out;
}

function runScript(script: string, io: Io, env: ShellEnv): number {
  const toks = tokenize(script);
  let status = 0;
  let skip: 'and' | 'or' | undefined;
  let i = 0;
  while (i < toks.length) {
    const pipeline: Tok[][] = [[]];
    while (i < toks.length) {
      const t = toks[i]!;
      if ('op' in t && (t.op === ';' || t.op === '&&' || t.op === '||' || t.op === '&')) break;
      if ('op' in t && t.op === '|') pipeline.push([]);
      else pipeline[pipeline.length - 1]!.push(t);
      i++;
    }
    const sep = i < toks.length ? (toks[i] as { op: string }).op : ';';
    i++;
    if (!(skip === 'and' && status !== 0) && !(skip === 'or' && status === 0) && pipeline[0]!.length > 0) {
      let input = io.stdin;
      for (const [n, cmd] of pipeline.entries()) {
        const last = n === pipeline.length - 1;
        const sub: Io = { ...io, stdin: input, out: [] };
        try {
          status = runSimple(cmd, sub, env, status);
        } finally {
          io.durationMs = sub.durationMs;
          io.cwd = sub.cwd;
          if (last) io.out.push(...sub.out);
          else input = Buffer.concat(sub.out);
        }
      }
    }
    skip = sep === '&&' ? 'and' : sep === '||' ? 'or' : undefined;
  }
  return status;
}

function runSimple(toks: Tok[], io: Io, env: ShellEnv, status: number): number {
  const words: string[] = [];
  let outFile: { path: string; append: boolean } | undefined;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if ('op' in t) {
      const target = toks[++k];
      const path = target && 'word' in target ? expand(target.word, env, status).join(' ') : '';
      if (t.op === '>' || t.op === '>>') outFile = { path: abs(io, path), append: t.op === '>>' };
      else if (t.op === '<') {
        const b = io.files.get(abs(io, path));
        if (!b) return missing(io, 'sh', '', path);
        io.stdin = b;
      }
      continue;
    }
    if (words.length === 0 && t.word.length >= 1 && /^\w+=/.test(t.word[0]!.text) && t.word[0]!.q === 'none') {
      const [name, ...rest] = t.word[0]!.text.split('=');
      env.vars[name!] = expand([{ text: rest.join('='), q: 'none' }, ...t.word.slice(1)], env, status).join(' ');
      continue;
    }
    words.push(...expand(t.word, env, status));
  }
  if (words.length === 0) return 0;
  const [cmd, ...rest] = words;
  let code: number;
  if (cmd === 'shift') {
    env.args = env.args.slice(Number(rest[0] ?? 1));
    code = 0;
  } else if (cmd === 'cd') {
    const dir = rest.filter((a) => a !== '--')[0] ?? '/root';
    io.cwd = abs(io, dir);
    code = 0;
  } else if (cmd === 'exit') throw new ExitSignal(Number(rest[0] ?? status));
  else if (cmd === 'exec') {
    code = runCommand(rest, io, env);
    flush(io, outFile);
    throw new ExitSignal(code);
  } else code = runCommand(words, io, env);
  flush(io, outFile);
  return code;
}

function flush(io: Io, outFile: { path: string; append: boolean } | undefined): void {
  if (!outFile) return;
  const data = Buffer.concat(io.out);
  io.out.length = 0;
  const prev = outFile.append ? (io.files.get(outFile.path) ?? Buffer.alloc(0)) : Buffer.alloc(0);
  io.files.set(outFile.path, Buffer.concat([prev, data]));
}
