// What the PowerShell tool runs: the vmhub adapter's marker scripts (their `$vm…` lines are read,
// the body is trusted to mean what /work/notes/windows-contract.md §4 says), else the mini
// PowerShell. Returns stdout/stderr/status as `powershell -EncodedCommand` would.
import type { Desktop } from './desktop.ts';
import { MiniPowerShell, type PsResult, runArgv } from './powershell.ts';
import { FsError } from './winfs.ts';

const b64text = (s: string) => Buffer.from(s, 'base64').toString('utf8');

function vmVars(script: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const m of script.matchAll(/^\$(vm\w+)\s*=\s*(.*)$/gm)) vars.set(m[1], m[2].trim());
  return vars;
}
const unquote = (v: string | undefined) => (v ?? '').replace(/^'(.*)'$/s, '$1');
const list = (v: string | undefined) => [...(v ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1]);

function netError(method: string, args: number, e: unknown): PsResult {
  const msg = e instanceof Error ? e.message : String(e);
  return { out: '', err: `Exception calling "${method}" with "${args}" argument(s): "${msg}"\r\n`, code: 1 };
}

export async function runScript(d: Desktop, script: string, signal?: AbortSignal): Promise<PsResult> {
  d.powershell.push(script);
  const kind = /^# vmhub:([\w-]+)/.exec(script)?.[1];
  if (!kind) return new MiniPowerShell(d, d.home, '', signal).run(script);
  const v = vmVars(script);
  const line = (s: string): PsResult => ({ out: `${s}\r\n`, err: '', code: 0 });
  const path = (name: string) => d.fs.resolve(b64text(unquote(v.get(name))));
  switch (kind) {
    case 'home':
      return line(`vmhub-home ${d.home}`);
    case 'screen':
      return line(`vmhub-screen ${JSON.stringify({ x: 0, y: 0, width: d.screen.width, height: d.screen.height })}`);
    case 'clip-get':
      return line(`vmhub-clip-get ${JSON.stringify({ text: Buffer.from(d.clipboard, 'utf8').toString('base64') })}`);
    case 'clip-set':
      d.clipboard = b64text(unquote(v.get('vmText')));
      return line('vmhub-clip-set ok');
    case 'exec': {
      const argv = list(v.get('vmArgv')).map(b64text);
      const cwd = unquote(v.get('vmCwd'));
      const stdinFile = unquote(v.get('vmStdinFile'));
      const stdin = stdinFile ? d.fs.read(d.fs.resolve(b64text(stdinFile))) : Buffer.from(unquote(v.get('vmStdin')), 'base64');
      const max = Number(v.get('vmMax') ?? 1 << 20);
      const r = await runArgv(d, argv, { cwd: cwd ? d.fs.resolve(b64text(cwd)) : d.home, stdin, timeoutMs: Number(v.get('vmTimeoutMs') ?? 0) || undefined, signal });
      const truncated = r.stdout.length > max || r.stderr.length > max;
      const o = { exit: r.exit, timed_out: r.timedOut, truncated, stdout: r.stdout.subarray(0, max).toString('base64'), stderr: r.stderr.subarray(0, max).toString('base64') };
      return line(`vmhub-exec ${JSON.stringify(o)}`);
    }
    case 'put': {
      try {
        const size = d.fs.write(path('vmPath'), Buffer.from(unquote(v.get('vmData')), 'base64'), { append: unquote(v.get('vmMode')) === 'append', mkdirs: unquote(v.get('vmMode')) === 'create' });
        return line(`vmhub-put ${size}`);
      } catch (e) {
        return netError('Open', 3, e);
      }
    }
    case 'rename': {
      try {
        const to = path('vmTo');
        if (d.fs.exists(to) && !d.fs.isDir(to)) d.fs.remove(to);
        d.fs.rename(path('vmFrom'), to, false);
        return line('vmhub-rename ok');
      } catch (e) {
        return netError('Move', 2, e);
      }
    }
    case 'remove': {
      const p = path('vmPath');
      if (d.fs.exists(p) && !d.fs.isDir(p)) d.fs.remove(p);
      return line('vmhub-remove ok');
    }
    case 'get': {
      const p = path('vmPath');
      if (d.fs.isDir(p)) return line('vmhub-get {"directory":true}');
      if (!d.fs.exists(p)) return line('vmhub-get {"missing":true}');
      const data = d.fs.read(p);
      const off = Math.min(Number(v.get('vmOffset') ?? 0), data.length);
      const chunk = data.subarray(off, off + Math.max(0, Number(v.get('vmLength') ?? data.length)));
      return line(`vmhub-get {"size":${data.length},"data":"${chunk.toString('base64')}"}`);
    }
    default:
      return { out: '', err: `stand-in: unknown vmhub script kind '${kind}'\r\n`, code: 1 };
  }
}

export { FsError };

/**
 * What Windows-MCP's shell tools (Powershell-Tool, Shell, PowerShell) answer: `command` run until
 * the call ends (its abort is rethrown) or `timeoutMs` passes ("Command execution timed out"),
 * its output through `text`, a failure worded by `failed` as the version words it.
 */
export async function shellReply(d: Desktop, command: string, signal: AbortSignal, timeoutMs: number, failed: (e: unknown) => string, text = (s: string) => s): Promise<string> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => ac.abort(new Error('timeout')), timeoutMs);
  try {
    const r = await runScript(d, command, ac.signal);
    return `Response: ${text(r.out || r.err)}\nStatus Code: ${r.code}`;
  } catch (e) {
    if (signal.aborted) throw e;
    if (ac.signal.aborted) return 'Response: Command execution timed out\nStatus Code: 1';
    return `${failed(e)}\nStatus Code: 1`;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
