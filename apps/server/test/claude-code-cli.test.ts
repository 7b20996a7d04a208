// The real Claude Code CLI (pinned in fixtures/npm-tools.json) against the built server:
// `claude mcp list` with HOME in a temp dir holding what the examples/clients scripts register —
// over HTTP without a token (it must say "missing bearer token" and the header, not "Dynamic
// Client Registration rejected (HTTP 404)"), with a wrong token, with the token, and over stdio
// from this checkout. No model key is needed: `mcp list` only connects.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BIN, sandbox, startHttp, type HttpServer } from './harness.ts';
import { npmTool } from './npm-tool.ts';

const runFile = promisify(execFile);
const EXAMPLES = fileURLToPath(new URL('../../../examples/clients/', import.meta.url));
const TOKEN = `cc-${Date.now().toString(36)}-token`;
const tool = await npmTool('@anthropic-ai/claude-code');
const box = sandbox();
const homes: string[] = [];
let server: HttpServer | undefined;
let url = '';

after(async () => { await server?.stop(); box.cleanup(); for (const h of homes) rmSync(h, { recursive: true, force: true }); });

/** A fresh HOME; `claude` and this Node first on PATH; no traffic but to the server. */
function home(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-claude-home-'));
  homes.push(dir);
  return {
    PATH: `${join(dirname(dirname(tool.dir!)), '.bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1',
  };
}

async function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout, stderr } = await runFile(cmd, args, { env, cwd: env.HOME, timeout: 120_000 });
  return `${stdout}${stderr}`;
}

/** The `claude mcp list` line of the server named vmhub. */
async function listed(env: NodeJS.ProcessEnv): Promise<string> {
  const out = await sh('claude', ['mcp', 'list'], env);
  const line = out.split('\n').find((l) => l.startsWith('vmhub:'));
  assert.ok(line, out);
  return line!;
}

describe('Claude Code CLI: claude mcp list against the built server', { skip: tool.skip }, () => {
  before(async () => {
    server = await startHttp(box, { HOME: box.dir, VMHUB_HTTP_TOKEN: TOKEN });
    url = server.url;
  });

  it('over HTTP without a token: "missing bearer token" and the header to add, no 404', async () => {
    const env = home();
    await sh('claude', ['mcp', 'add', '--scope', 'user', '--transport', 'http', 'vmhub', url], env);
    const line = await listed(env);
    assert.match(line, /✘ Failed to connect/);
    assert.match(line, /missing bearer token: vmhub takes no OAuth: add the header 'Authorization: Bearer <token>'/);
    assert.doesNotMatch(line, /HTTP 404/);
  });

  it('over HTTP with a wrong token: the header was rejected, the token is wrong or revoked', async () => {
    const env = { ...home(), VMHUB_URL: url, VMHUB_HTTP_TOKEN: 'not-the-token-1234' };
    await sh('sh', [join(EXAMPLES, 'claude-code-http.sh')], env);
    const line = await listed(env);
    assert.match(line, /Server rejected the configured Authorization header \(HTTP 401\)/);
    assert.match(line, /bearer token \(Authorization: Bearer <token>\)/);
  });

  it('over HTTP with the token (examples/clients/claude-code-http.sh): connected', async () => {
    const env = { ...home(), VMHUB_URL: url, VMHUB_HTTP_TOKEN: TOKEN };
    await sh('sh', [join(EXAMPLES, 'claude-code-http.sh')], env);
    assert.match(await listed(env), /\(HTTP\) - ✔ Connected$/);
  });

  it('over stdio from this checkout (examples/clients/claude-code-checkout.sh): connected', async () => {
    const env = home();
    const added = await sh('sh', [join(EXAMPLES, 'claude-code-checkout.sh')], env);
    assert.ok(added.includes(`${process.execPath} ${BIN}`), added);
    assert.match(await listed(env), /dist\/bin\.js - ✔ Connected$/);
  });
});
