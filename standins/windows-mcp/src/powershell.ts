// The stand-in's PowerShell: not a PowerShell, a small evaluator of a documented set of commands,
// plus the vmhub adapter's script envelopes (`# vmhub:<kind>` first line, see
// /work/notes/windows-contract.md §4), run against the simulated desktop and its file system.
// Supported (README lists them): Write-Output/echo/Write-Host, bare strings and $variables,
// `$x = …`, exit N, $LASTEXITCODE, Get-Content/Set-Content/Add-Content, Test-Path, New-Item,
// Remove-Item, Get-ChildItem, Get-Location, Get-Process, Stop-Process, Start-Sleep,
// Get-/Set-Clipboard, [Console]::Error.WriteLine, [Console]::In.ReadToEnd(), [IO.File]::ReadAllText/
// WriteAllText/WriteAllBytes, [Convert]::ToBase64String([IO.File]::ReadAllBytes(p)),
// [Convert]::FromBase64String, [Text.Encoding]::UTF8.GetString, cmd /c, whoami, hostname.
// Anything else fails as PowerShell does ("is not recognized…", status 1).
import type { Desktop } from './desktop.ts';
import { readTar } from './tar.ts';
import { FsError } from './winfs.ts';

export interface PsResult {
  out: string;
  err: string;
  code: number;
}

class Exit extends Error {
  readonly code: number;
  constructor(code: number) { super(`exit ${code}`); this.code = code; }
}
class PsError extends Error {}

export const NOT_RECOGNIZED = (name: string) =>
  `${name} : The term '${name}' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.`;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Splits on newlines and `;` outside quotes, brackets and braces. */
function statements(script: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  let q: string | null = null;
  for (let i = 0; i < script.length; i++) {
    const c = script[i];
    if (q) {
      cur += c;
      if (c === q) { if (script[i + 1] === q) { cur += script[++i]; } else q = null; }
      continue;
    }
    if (c === "'" || c === '"') { q = c; cur += c; continue; }
    if (c === '#' && depth === 0 && /(^|\s)$/.test(cur)) { while (i < script.length && script[i] !== '\n') i++; i--; continue; }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if ((c === '\n' || c === ';') && depth === 0) { if (cur.trim()) out.push(cur.trim()); cur = ''; continue; }
    if (c === '\r') continue;
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Splits a command line into words, keeping quoted words quoted (they are evaluated later). */
function words(s: string): string[] {
  const out: string[] = [];
  const re = /'(?:[^']|'')*'|"(?:[^"`]|`.|"")*"|\([^)]*\)|\[[^\]]*\]::\S+|\S+/g;
  for (const m of s.matchAll(re)) out.push(m[0]);
  return out;
}

export class MiniPowerShell {
  vars = new Map<string, string>();
  /** What the script printed, raw: output lines end in \r\n, [Console]::Out.Write adds nothing. */
  stdout = '';
  stderr = '';
  failed = false;
  lastExit = 0;

  private d: Desktop;
  private cwd: string;
  private stdin: string;
  private signal?: AbortSignal;

  constructor(d: Desktop, cwd: string, stdin = '', signal?: AbortSignal) {
    this.d = d;
    this.cwd = cwd;
    this.stdin = stdin;
    this.signal = signal;
    this.vars.set('home', d.home);
    this.vars.set('pwd', cwd);
  }

  async run(script: string): Promise<PsResult> {
    try {
      for (const st of statements(script)) {
        try {
          await this.statement(st);
          this.failed = false;
        } catch (e) {
          if (e instanceof Exit) throw e;
          if (e instanceof PsError || e instanceof FsError) { this.emitErr(e.message); this.failed = true; continue; }
          throw e;
        }
      }
      return this.result(this.failed ? 1 : 0);
    } catch (e) {
      if (e instanceof Exit) return this.result(e.code);
      throw e;
    }
  }

  private emit(...lines: string[]): void {
    for (const l of lines) this.stdout += `${l}\r\n`;
  }

  private emitErr(...lines: string[]): void {
    for (const l of lines) this.stderr += `${l}\r\n`;
  }

  private result(code: number): PsResult {
    return { out: this.stdout, err: this.stderr, code };
  }

  private path(p: string): string {
    return this.d.fs.resolve(p, this.cwd);
  }

  /** Evaluates one value: a quoted string, a $variable, a .NET call the evaluator knows, a number or a bare word. */
  value(expr: string): string {
    const e = expr.trim();
    let m: RegExpExecArray | null;
    const plus = splitOp(e, '+');
    if (plus.length > 1) return plus.map((p) => this.value(p)).join('');
    const repl = splitOp(e, '-replace');
    if (repl.length === 2) {
      const [pat, to = ''] = splitOp(repl[1], ',').map((p) => this.value(p));
      return this.value(repl[0]).replace(new RegExp(pat, 'gi'), to.replace(/\$(\d)/g, '$$$1'));
    }
    if (/^'(?:[^']|'')*'$/.test(e)) return e.slice(1, -1).replace(/''/g, "'");
    if (/^"(?:[^"`]|`.|"")*"$/.test(e)) return this.expand(e.slice(1, -1));
    if ((m = /^\$env:(\w+)$/i.exec(e))) return this.env(m[1]);
    if (/^\$LASTEXITCODE$/i.test(e)) return String(this.lastExit);
    if (/^\$input$/i.test(e)) return this.stdin;
    if ((m = /^\$(\w+)$/.exec(e))) return this.vars.get(m[1].toLowerCase()) ?? '';
    if (/^\(Get-Location\)\.Path$/i.test(e) || /^\$PWD\.Path$/i.test(e)) return this.cwd;
    if (/^\[Console\]::In\.ReadToEnd\(\)$/i.test(e)) return this.stdin;
    if ((m = /^\[Convert\]::ToBase64String\(\[(?:System\.)?IO\.File\]::ReadAllBytes\((.+)\)\)$/i.exec(e))) return this.d.fs.read(this.path(this.value(m[1]))).toString('base64');
    if ((m = /^\[(?:System\.)?Text\.Encoding\]::UTF8\.GetString\(\[Convert\]::FromBase64String\((.+)\)\)$/i.exec(e))) return Buffer.from(this.value(m[1]), 'base64').toString('utf8');
    if ((m = /^\[(?:System\.)?IO\.File\]::ReadAllText\((.+)\)$/i.exec(e))) return this.d.fs.read(this.path(this.value(m[1]))).toString('utf8').replace(/^\uFEFF/, '');
    if ((m = /^\[(?:System\.)?IO\.File\]::Exists\((.+)\)$/i.exec(e))) { const p = this.path(this.value(m[1])); return this.d.fs.exists(p) && !this.d.fs.isDir(p) ? 'True' : 'False'; }
    if ((m = /^\((.+)\)$/.exec(e))) return this.value(m[1]);
    return e;
  }

  private env(name: string): string {
    const n = name.toUpperCase();
    if (n === 'USERPROFILE' || n === 'HOME') return this.d.home;
    if (n === 'USERNAME') return this.d.home.split('\\').pop() ?? 'vmhub';
    if (n === 'COMPUTERNAME') return 'STANDIN';
    if (n === 'TEMP' || n === 'TMP') return `${this.d.home}\\AppData\\Local\\Temp`;
    if (n === 'SYSTEMROOT' || n === 'WINDIR') return 'C:\\Windows';
    return '';
  }

  private expand(s: string): string {
    return s
      .replace(/`n/g, '\n').replace(/`r/g, '\r').replace(/`t/g, '\t').replace(/""/g, '"').replace(/`(.)/g, '$1')
      .replace(/\$env:(\w+)/gi, (_, n: string) => this.env(n))
      .replace(/\$(\w+)/g, (_, n: string) => (n.toLowerCase() === 'lastexitcode' ? String(this.lastExit) : this.vars.get(n.toLowerCase()) ?? ''));
  }

  /** -Name value pairs and positional words of a cmdlet call. */
  private args(ws: string[]): { named: Map<string, string | true>; pos: string[] } {
    const named = new Map<string, string | true>();
    const pos: string[] = [];
    for (let i = 0; i < ws.length; i++) {
      const w = ws[i];
      if (/^-[A-Za-z]\w*$/.test(w)) {
        const next = ws[i + 1];
        const flag = /^-(Raw|Force|Recurse|NoNewline|PassThru|Encoding)$/i.test(w) && !/^-Encoding$/i.test(w);
        if (!flag && next !== undefined && !/^-[A-Za-z]/.test(next)) { named.set(w.slice(1).toLowerCase(), this.value(next)); i++; }
        else named.set(w.slice(1).toLowerCase(), true);
      } else pos.push(this.value(w));
    }
    return { named, pos };
  }

  private async statement(st: string): Promise<void> {
    let m: RegExpExecArray | null;
    if ((m = /^\$(\w+)\s*=\s*(.+)$/s.exec(st))) { this.vars.set(m[1].toLowerCase(), this.value(m[2])); return; }
    if ((m = /^exit(?:\s+(.+))?$/i.exec(st))) throw new Exit(m[1] ? Number(this.value(m[1])) | 0 : this.lastExit);
    if ((m = /^\[Console\]::Error\.WriteLine\((.*)\)$/i.exec(st))) { this.emitErr(this.value(m[1])); return; }
    if ((m = /^\[Console\]::(?:Out\.)?Write\((.*)\)$/i.exec(st))) { this.stdout += this.value(m[1]); return; }
    if ((m = /^\[Console\]::(?:Out\.)?WriteLine\((.*)\)$/i.exec(st))) { this.emit(this.value(m[1])); return; }
    if ((m = /^\[Console\]::Error\.Write\((.*)\)$/i.exec(st))) { this.stderr += this.value(m[1]); return; }
    if ((m = /^\[(?:System\.)?IO\.File\]::WriteAllBytes\((.+?),\s*\[Convert\]::FromBase64String\((.+)\)\)$/i.exec(st))) {
      this.d.fs.write(this.path(this.value(m[1])), Buffer.from(this.value(m[2]), 'base64'));
      return;
    }
    if ((m = /^\[(?:System\.)?IO\.File\]::WriteAllText\((.+?),\s*(.+)\)$/i.exec(st))) { this.d.fs.write(this.path(this.value(m[1])), Buffer.from(this.value(m[2]), 'utf8')); return; }
    if (/^['"$(\[]/.test(st)) { this.emit(...this.value(st).replace(/\r?\n$/, '').split(/\r?\n/)); return; }
    const ws = words(st);
    const cmd = ws[0].toLowerCase();
    const { named, pos } = this.args(ws.slice(1));
    const str = (k: string, i: number) => { const v = named.get(k); return typeof v === 'string' ? v : pos[i]; };
    switch (cmd) {
      case 'write-output': case 'echo': case 'write-host': case 'write':
        this.emit(...pos.join(' ').split(/\r?\n/));
        return;
      case 'get-content': case 'cat': case 'type': case 'gc': {
        const text = this.d.fs.read(this.path(str('path', 0) ?? str('literalpath', 0))).toString('utf8').replace(/^\uFEFF/, '');
        this.emit(...(named.has('raw') ? [text.replace(/\r?\n$/, '')] : text.replace(/\r?\n$/, '').split(/\r?\n/)));
        return;
      }
      case 'set-content': case 'add-content': case 'sc': case 'ac': case 'out-file': {
        const p = this.path(str('path', 0) ?? str('filepath', 0) ?? str('literalpath', 0));
        const v = str('value', 1) ?? '';
        this.d.fs.write(p, Buffer.from(named.has('nonewline') ? v : `${v}\r\n`, 'utf8'), { append: cmd === 'add-content' || cmd === 'ac' || named.has('append') });
        return;
      }
      case 'test-path':
        this.emit(this.d.fs.exists(this.path(str('path', 0) ?? str('literalpath', 0))) ? 'True' : 'False');
        return;
      case 'new-item': case 'ni': case 'mkdir': case 'md': {
        const p = this.path(str('path', 0) ?? '');
        const type = String(named.get('itemtype') ?? (cmd === 'mkdir' || cmd === 'md' ? 'Directory' : 'File')).toLowerCase();
        if (this.d.fs.exists(p) && !named.has('force')) throw new PsError(`New-Item : An item with the specified name ${p} already exists.`);
        if (type === 'directory') this.d.fs.mkdir(p);
        else this.d.fs.write(p, Buffer.from(String(named.get('value') ?? ''), 'utf8'), { mkdirs: named.has('force') });
        return;
      }
      case 'remove-item': case 'rm': case 'del': case 'ri':
        this.d.fs.remove(this.path(str('path', 0) ?? str('literalpath', 0)), named.has('recurse'));
        return;
      case 'get-childitem': case 'ls': case 'dir': case 'gci':
        this.emit(...this.d.fs.list(this.path(str('path', 0) ?? this.cwd)));
        return;
      case 'get-location': case 'pwd':
        this.emit('', 'Path', '----', this.cwd, '');
        return;
      case 'start-sleep': case 'sleep': {
        const ms = named.has('milliseconds') ? Number(named.get('milliseconds')) : Number(str('seconds', 0) ?? 0) * 1000;
        await sleep(ms, this.signal);
        return;
      }
      case 'get-process': case 'ps': case 'gps': {
        const name = str('name', 0)?.toLowerCase();
        const procs = this.d.processes().filter((p) => !name || p.name.toLowerCase() === name);
        if (!procs.length) throw new PsError(`Get-Process : Cannot find a process with the name "${name}". Verify the process name and call the cmdlet again.`);
        this.emit('', 'Handles  NPM(K)    PM(K)      WS(K)     CPU(s)     Id  SI ProcessName', '-------  ------    -----      -----     ------     --  -- -----------');
        for (const p of procs) this.emit(`${'212'.padStart(7)}${'14'.padStart(8)}${String(Math.round(p.memoryMb * 300)).padStart(9)}${String(Math.round(p.memoryMb * 1024)).padStart(11)}${'0.12'.padStart(11)}${String(p.pid).padStart(7)}${'1'.padStart(4)} ${p.name}`);
        this.emit('');
        return;
      }
      case 'stop-process': case 'kill': case 'spps': {
        const id = named.get('id');
        const n = this.d.kill(typeof id === 'string' ? { pid: Number(id) } : { name: str('name', 0) });
        if (!n) throw new PsError(`Stop-Process : Cannot find a process with the ${typeof id === 'string' ? `process identifier ${id}` : `name "${str('name', 0)}"`}.`);
        return;
      }
      case 'get-clipboard': case 'gcb':
        this.emit(...this.d.clipboard.split(/\r?\n/));
        return;
      case 'set-clipboard': case 'scb':
        this.d.clipboard = str('value', 0) ?? '';
        return;
      case 'whoami':
        this.emit(`standin\\${this.env('USERNAME')}`);
        return;
      case 'hostname':
        this.emit('STANDIN');
        return;
      default: {
        const native = await runArgv(this.d, [ws[0], ...ws.slice(1).map((w) => this.value(w))], { cwd: this.cwd, signal: this.signal });
        if (native.notFound) throw new PsError(NOT_RECOGNIZED(ws[0]));
        this.lastExit = native.exit ?? 1;
        if (native.stdout.length) this.emit(...native.stdout.toString('utf8').replace(/\r?\n$/, '').split(/\r?\n/));
        if (native.stderr.length) this.emitErr(native.stderr.toString('utf8').replace(/\r?\n$/, ''));
      }
    }
  }
}

export interface ArgvResult {
  exit: number | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  notFound?: boolean;
}

/** Runs an argv "no shell": the few programs the stand-in knows (cmd, powershell/pwsh, tar, whoami, hostname). */
export async function runArgv(d: Desktop, argv: string[], opts: { cwd?: string; stdin?: Buffer; timeoutMs?: number; signal?: AbortSignal }): Promise<ArgvResult> {
  const prog = (argv[0] ?? '').split(/[\\/]/).pop()!.toLowerCase().replace(/\.exe$/, '');
  const cwd = opts.cwd || d.home;
  const ok = (out: string, exit = 0, err = ''): ArgvResult => ({ exit, stdout: Buffer.from(out, 'utf8'), stderr: Buffer.from(err, 'utf8'), timedOut: false });
  const ac = new AbortController();
  const onAbort = () => ac.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = opts.timeoutMs ? setTimeout(() => ac.abort(new Error('timeout')), opts.timeoutMs) : undefined;
  try {
    switch (prog) {
      case 'cmd': {
        const i = argv.findIndex((a) => /^\/[ck]$/i.test(a));
        const line = argv.slice(i + 1).join(' ').trim();
        let m: RegExpExecArray | null;
        if ((m = /^echo\s?(.*)$/is.exec(line))) return ok(`${m[1]}\r\n`);
        if ((m = /^exit(?:\s+\/b)?\s+(\d+)$/i.exec(line))) return ok('', Number(m[1]));
        if ((m = /^type\s+(.+)$/i.exec(line))) return ok(d.fs.read(d.fs.resolve(m[1].replace(/^"|"$/g, ''), cwd)).toString('utf8'));
        if (/^cd$/i.test(line)) return ok(`${cwd}\r\n`);
        const w = line.split(/\s+/)[0];
        return ok('', 1, `'${w}' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n`);
      }
      case 'powershell': case 'pwsh': {
        const ci = argv.findIndex((a) => /^-(c|command)$/i.test(a));
        const ei = argv.findIndex((a) => /^-(e|ec|encodedcommand)$/i.test(a));
        const script = ei >= 0 ? Buffer.from(argv[ei + 1] ?? '', 'base64').toString('utf16le') : argv.slice(ci + 1).join(' ');
        const ps = new MiniPowerShell(d, cwd, opts.stdin?.toString('utf8') ?? '', ac.signal);
        const r = await ps.run(script);
        return ok(r.out, r.code, r.err);
      }
      case 'tar': case 'bsdtar': {
        const flags = argv.slice(1);
        const fi = flags.findIndex((a) => /^-?[a-z]*f$/i.test(a) && a !== '-C');
        const ci = flags.indexOf('-C');
        if (!flags.some((a) => /^-?[a-z]*x/i.test(a)) || fi < 0) return ok('', 1, 'tar.exe: stand-in tar only extracts: tar -x -f <file> [-C <dir>]\r\n');
        const archive = d.fs.read(d.fs.resolve(flags[fi + 1], cwd));
        const dest = d.fs.resolve(ci >= 0 ? flags[ci + 1] : '.', cwd);
        for (const e of readTar(archive)) {
          const p = d.fs.resolve(e.name.replace(/\//g, '\\'), dest);
          if (e.dir) d.fs.mkdir(p);
          else d.fs.write(p, e.data, { mkdirs: true });
        }
        return ok('');
      }
      case 'whoami': return ok(`standin\\${d.home.split('\\').pop()}\r\n`);
      case 'hostname': return ok('STANDIN\r\n');
      default:
        return { exit: 127, stdout: Buffer.alloc(0), stderr: Buffer.from(`${argv[0]}: The system cannot find the file specified`), timedOut: false, notFound: true };
    }
  } catch (e) {
    if (ac.signal.aborted) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      return { exit: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timedOut: true };
    }
    if (e instanceof FsError) return ok('', 1, `${e.message}\r\n`);
    throw e;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** Splits `s` on a binary operator at the top level (outside quotes and brackets), with spaces around it. */
function splitOp(s: string, op: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let q: string | null = null;
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) { cur += c; if (c === q) { if (s[i + 1] === q) cur += s[++i]; else q = null; } continue; }
    if (c === "'" || c === '"') { q = c; cur += c; continue; }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (depth === 0 && s.startsWith(op, i) && /\s/.test(s[i - 1] ?? '') && /\s/.test(s[i + op.length] ?? '')) {
      parts.push(cur.trim()); cur = ''; i += op.length - 1; continue;
    }
    if (depth === 0 && op === ',' && c === ',') { parts.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  parts.push(cur.trim());
  return parts.filter((p, i) => p !== '' || i > 0);
}
