#!/usr/bin/env node
// windows-mcp-standin serve [--version 0.8.2] [--host 127.0.0.1] [--port 8000] [--auth-key KEY]
//                           [--allow-insecure-remote] [--screen 2560x1440] [--transport streamable-http]
// windows-mcp-standin ctl [--host 127.0.0.1] [--port 8000] [--auth-key KEY] state | faults [JSON]
// Env (read when the flag is absent): WINDOWS_MCP_AUTH_KEY, WINDOWS_MCP_STANDIN_VERSION,
// WINDOWS_MCP_SCREENSHOT_SCALE, WINDOWS_MCP_STANDIN_SCREEN (WxH), WINDOWS_MCP_STANDIN_FAULTS (JSON).
import './node18.ts';
import { startStandin } from './server.ts';

function flags(argv: string[]): { cmd: string; rest: string[]; f: Map<string, string | true> } {
  const f = new Map<string, string | true>();
  const rest: string[] = [];
  let cmd = '';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, v] = a.slice(2).split('=', 2);
      if (v !== undefined) f.set(k, v);
      else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--') && k !== 'allow-insecure-remote') f.set(k, argv[++i]);
      else f.set(k, true);
    } else if (!cmd) cmd = a;
    else rest.push(a);
  }
  return { cmd, rest, f };
}

const { cmd, rest, f } = flags(process.argv.slice(2));
const get = (k: string, env?: string) => { const v = f.get(k); return typeof v === 'string' ? v : env ? process.env[env] : undefined; };
const key = get('auth-key', 'WINDOWS_MCP_AUTH_KEY') || undefined;
const host = get('host') ?? '127.0.0.1';
const port = Number(get('port') ?? 8000);

if (cmd === 'serve' || cmd === '') {
  const screen = get('screen', 'WINDOWS_MCP_STANDIN_SCREEN');
  const [w, h] = screen ? screen.split('x').map(Number) : [];
  const faultsEnv = process.env.WINDOWS_MCP_STANDIN_FAULTS;
  const s = await startStandin({
    version: get('version', 'WINDOWS_MCP_STANDIN_VERSION') ?? '0.8.2',
    authKey: key,
    host,
    port,
    allowInsecureRemote: f.has('allow-insecure-remote'),
    screenshotScale: Number(get('screenshot-scale', 'WINDOWS_MCP_SCREENSHOT_SCALE') ?? 1),
    ...(w && h ? { screen: { width: w, height: h } } : {}),
    ...(faultsEnv ? { faults: JSON.parse(faultsEnv) } : {}),
  });
  process.stdout.write(`windows-mcp-standin ${s.version} listening on ${s.url} (auth: ${key ? 'key' : 'none'})\n`);
  const stop = () => void s.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else if (cmd === 'ctl') {
  const [what, body] = rest;
  if (what !== 'state' && what !== 'faults') {
    process.stderr.write('usage: windows-mcp-standin ctl [--port N] [--auth-key K] state | faults [JSON]\n');
    process.exit(2);
  }
  const r = await fetch(`http://${host}:${port}/vmhub-standin/${what}`, {
    method: body ? 'POST' : 'GET',
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    ...(body ? { body } : {}),
  });
  // exit only once the pipe has taken everything (a large state is cut short otherwise)
  const code = r.ok ? 0 : 1;
  process.stdout.write(`${await r.text()}\n`, () => process.exit(code));
} else {
  process.stderr.write(`windows-mcp-standin: unknown command '${cmd}' (serve | ctl)\n`);
  process.exit(2);
}
