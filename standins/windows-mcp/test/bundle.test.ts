// The built bundle (dist/windows-mcp-standin.mjs, what the windows-standin golden runs on Debian's
// nodejs 18): self-contained, starts from the CLI with the golden's flags and env, serves the
// recorded tools/list, and its ctl subcommand reads state and sets faults.
import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BUNDLE = fileURLToPath(new URL('../dist/windows-mcp-standin.mjs', import.meta.url));
const built = existsSync(BUNDLE);

test('the package exports the bundle as ./bundle', { skip: !built && 'run the build first' }, () => {
  equal(fileURLToPath(import.meta.resolve('@vmhub/windows-mcp-standin/bundle')), BUNDLE);
});

// Run from a copy in an empty temp dir: no node_modules to fall back on, as in the golden.
test('a copy of the bundle alone serves the recorded 0.5.8 tools with the key from WINDOWS_MCP_AUTH_KEY; ctl reads state', { skip: !built && 'run the build first' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'standin-bundle-'));
  const alone = join(dir, 'windows-mcp-standin.mjs');
  copyFileSync(BUNDLE, alone);
  const child = spawn(process.execPath, [alone, 'serve', '--transport', 'streamable-http', '--host', '127.0.0.1', '--port', '0'], {
    env: { ...process.env, WINDOWS_MCP_AUTH_KEY: 'cli-key', WINDOWS_MCP_STANDIN_VERSION: '0.5.8' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => { out += d; const m = /listening on (\S+)/.exec(out); if (m) resolve(m[1]); });
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const client = new Client({ name: 'bundle-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer cli-key' } } }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    deepStrictEqual(names, JSON.parse(readFileSync(fileURLToPath(new URL('../src/schemas/0.5.8.json', import.meta.url)), 'utf8')).tools.map((t: { name: string }) => t.name));
    await client.callTool({ name: 'Type-Tool', arguments: { loc: [500, 400], text: 'from the bundle' } });
    // a state far above a pipe's buffer: ctl must not exit before stdout is drained
    const big = Buffer.alloc(300_000, 7);
    await client.callTool({ name: 'Powershell-Tool', arguments: { command: `# vmhub:put\n$vmPath = '${Buffer.from('C:\\big.bin').toString('base64')}'\n$vmData = '${big.toString('base64')}'\n$vmMode = 'create'` } });
    await client.close();
    const port = new URL(url).port;
    const state = JSON.parse(execFileSync(process.execPath, [alone, 'ctl', '--port', port, 'state'], { env: { ...process.env, WINDOWS_MCP_AUTH_KEY: 'cli-key' }, maxBuffer: 64 << 20 }).toString());
    equal(state.version, '0.5.8');
    equal(state.textBox, 'from the bundle');
    const faults = JSON.parse(execFileSync(process.execPath, [alone, 'ctl', '--port', port, '--auth-key', 'cli-key', 'faults', '{"quarantine":1}']).toString());
    deepStrictEqual(faults, { quarantine: 1 });
    ok(state.windows.length >= 2);
    ok(Buffer.from(state.files['C:\\big.bin'], 'base64').equals(Buffer.alloc(300_000, 7)));
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});
