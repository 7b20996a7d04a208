/**
 * The default guest behind agent `exec`: nothing runs on the host. A small POSIX-sh subset and
 * the coreutils in guest-coreutils.ts work on the VM's in-memory files, enough for what a
 * provider's agent channel sends (`sh -c` scripts with positional parameters, shift, cd, exec,
 * redirections, pipes, && || ;). Unknown programs echo their argv.
 */
import type { ExecRequest, ExecResult } from './model.ts';
import { abs, fsOf, missing, runCommand } from './guest-coreutils.ts';
import { BASE_DIRS, checkRead, checkWrite, DEFAULT_ROOT_ONLY, ERR_TEXT, writeFile } from './guest-fs.ts';

export interface ShellEnv {
  vars: Record<string, string>;
  args: string[];
}

export interface Io {
  files: Map<string, Buffer>;
  owners: Map<string, string>;
  dirs: Set<string>;
  rootOnly: string[];
  /** Permission bits `chmod` / `mkdir -m` set (absent = 644 for a file, 755 for a directory). */
  modes: Map<string, number>;
  /** Whose rights the command runs with (`runuser -u` changes it); the agent itself is root. */
  user: string;
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

export class ExitSignal {
  readonly code: number;
  constructor(code: number) {
    this.code = code;
  }
}

export function guestShellExec(req: ExecRequest): ExecResult {
  const io: Io = { files: req.files, owners: req.owners ?? new Map(), dirs: req.dirs ?? new Set(BASE_DIRS), rootOnly: req.rootOnly ?? DEFAULT_ROOT_ONLY, modes: req.modes ?? new Map(), user: 'root', cwd: '/root', stdin: Buffer.from(req.input ?? ''), out: [], err: [], durationMs: 0 };
  let code: number;
  try {
    code = runCommand(req.argv, io, { vars: {}, args: [] });
  } catch (e) {
    code = e instanceof ExitSignal ? e.code : 2;
  }
  return { exitcode: code, stdout: Buffer.concat(io.out), stderr: io.err.join(''), durationMs: io.durationMs };
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

export function runScript(script: string, io: Io, env: ShellEnv): number {
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
      // The shell opens redirections with the command's user's rights, before the command runs.
      if (t.op === '>' || t.op === '>>') {
        outFile = { path: abs(io, path), append: t.op === '>>' };
        const err = checkWrite(fsOf(io), io.user, outFile.path);
        if (err) { io.err.push(`sh: 1: cannot create ${path}: ${ERR_TEXT[err]}\n`); return 2; }
      } else if (t.op === '<') {
        const err = checkRead(fsOf(io), io.user, abs(io, path));
        if (err === 'ENOENT') return missing(io, 'sh', '', path);
        if (err) { io.err.push(`sh: 1: cannot open ${path}: ${ERR_TEXT[err]}\n`); return 2; }
        io.stdin = io.files.get(abs(io, path))!;
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
  writeFile(fsOf(io), io.user, outFile.path, Buffer.concat([prev, data]));
}
