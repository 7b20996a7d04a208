// Security: take-over stops commands and file writes too (hardening issue, take-over item). The
// BUILT server with --http, an agent over Streamable HTTP on a real Docker debian-x11 lease, and
// the person through the live JSON API. While the person holds the machine, `vm_exec` (the
// issue's `DISPLAY=:0 xdotool type …`), `vm_put_file` and `vm_clone_repo` answer HUMAN_CONTROL
// and nothing reaches the person's terminal or file — read in the guest with `docker exec` as
// root, not from the agent's answers. With "allow commands and files" set, the same xdotool
// command does type into the terminal (so the refused one would have), while the input tools
// still wait.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer, until, type HttpServer } from '@vmhub/test-kit';
import { BIN } from './harness.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOKEN = `to-${randomBytes(12).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'vmhub-takeover-'));
const instance = `to${randomBytes(3).toString('hex')}`;
const LINES = '/tmp/takeover-lines.txt';
const DRAFT = '/home/user/draft.txt';
const DRAFT_TEXT = 'the person\'s draft, being edited\n';
const WORD = `agenttyped${randomBytes(3).toString('hex')}`;
/** What the issue saw an agent do while a person held the machine. */
const TYPE_INTO_SCREEN = `DISPLAY=:0 xdotool type --delay 20 '${WORD}' && DISPLAY=:0 xdotool key Return`;

let server: HttpServer | undefined;
let base = '';
let agent: Client;
let lease = '';
let container = '';

async function startServer(): Promise<string> {
  const config = join(dir, 'config.json');
  // framebuffer off: these checks are about commands and files, and read the guest with docker
  // exec; the shared framebuffer (host X socket) has its own tests and not every host shares
  // unix sockets through /dev/shm.
  writeFileSync(config, JSON.stringify({ instance, db: join(dir, 'vmhub.db'), reaper: { autostart: false }, providers: { docker: { framebuffer: false } } }));
  server = await startHttpServer({ bin: BIN, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'warn', VMHUB_HTTP_TOKEN: TOKEN, VMHUB_TOOLSETS: 'all' } });
  return server.base;
}

const call = async (tool: string, args: Record<string, unknown> = {}) => await agent.callTool({ name: tool, arguments: { lease_id: lease, ...args } }) as any;
async function ok(tool: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(tool, args);
  assert.equal(r.isError, undefined, `${tool}: ${JSON.stringify(r.structuredContent)}`);
  return r;
}
const api = (path: string, body?: unknown) => fetch(`${base}/api/leases/${lease}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

/** The guest as root sees it: the test's own eyes, not the agent's. */
async function guest(script: string): Promise<string> {
  return (await run('docker', ['exec', '-u', 'root', container, 'sh', '-c', script])).stdout;
}

before(async () => {
  base = await startServer();
  agent = new Client({ name: 'takeover-agent', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
});

after(async () => {
  if (lease) await call('vm_lease_release').catch(() => undefined);
  await agent?.close().catch(() => undefined);
  await server?.stop();
  await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
  rmSync(dir, { recursive: true, force: true });
});

describe('security: while a person holds the machine, commands and file writes wait too', () => {
  it('the agent leases debian-x11, writes the person\'s draft and opens a terminal that records each line it reads', async () => {
    const created = await agent.callTool({ name: 'vm_lease_create', arguments: { template: 'debian-x11', ttl_seconds: 900 } }) as any;
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    lease = created.structuredContent.lease_id;
    container = `vmhub-${instance}-${lease}`;
    await until(async () => ((await call('vm_lease_status', { wait_seconds: 5 })).structuredContent.status === 'ready' ? true : undefined), 'the lease to be ready', 120_000);
    await ok('vm_put_file', { path: DRAFT, content: DRAFT_TEXT });
    const reader = (await ok('vm_launch', { app: 'xterm', args: ['-T', 'person-terminal', '-e', 'sh', '-c', `while IFS= read -r l; do printf '%s\\n' "$l" >> ${LINES}; done`], wait_seconds: 10 })).structuredContent.window;
    await ok('vm_focus', { window: reader.id });
    await ok('vm_type', { text: 'before\n' });
    assert.equal(await until(async () => { const t = await guest(`cat ${LINES} 2>/dev/null || true`); return t ? t : undefined; }, 'the terminal to record the agent\'s line', 15_000), 'before\n');
  });

  it('take over without the allowance: vm_exec, vm_put_file and vm_clone_repo answer HUMAN_CONTROL and nothing changed in the guest', async () => {
    const r = await api('/takeover', {});
    assert.equal(r.status, 200);
    const taken = await r.json() as any;
    assert.equal(taken.control, 'human');
    assert.equal(taken.allow_commands_and_files, false);

    const refused = [
      ['vm_exec', { shell: TYPE_INTO_SCREEN }],
      ['vm_exec', { command: ['sh', '-c', TYPE_INTO_SCREEN] }],
      ['vm_exec', { shell: TYPE_INTO_SCREEN, detach: true }],
      ['vm_put_file', { path: DRAFT, content: 'overwritten by the agent\n' }],
      ['vm_put_file', { path: '/tmp/agent-new.txt', content_base64: Buffer.from('x').toString('base64') }],
      ['vm_clone_repo', { url: 'https://example.com/some/repo.git', dest: 'repo' }],
    ] as const;
    for (const [tool, args] of refused) {
      const a = await call(tool, args);
      assert.equal(a.isError, true, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(a.structuredContent)}`);
      assert.equal(a.structuredContent.code, 'HUMAN_CONTROL', tool);
      assert.equal(a.structuredContent.retryable, true);
      assert.match(a.structuredContent.message, /did not allow commands and files/);
      assert.match(a.structuredContent.hint, /allow them in the dashboard/);
      assert.equal(a.structuredContent.details.allow_commands_and_files, false);
    }
    // Watching and reading keep working.
    assert.ok((await ok('vm_screenshot')).content.some((c: any) => c.type === 'image'));
    assert.equal((await ok('vm_get_file', { path: DRAFT })).structuredContent.content, DRAFT_TEXT);

    await sleep(1500); // what xdotool would have typed by now
    assert.equal(await guest(`cat ${LINES}`), 'before\n', 'nothing was typed into the person\'s terminal');
    assert.equal(await guest(`cat ${DRAFT}`), DRAFT_TEXT, 'the person\'s file is untouched');
    assert.equal(await guest('test -e /tmp/agent-new.txt && echo there || echo absent'), 'absent\n');
    assert.equal(await guest('test -e /home/user/repo && echo there || echo absent'), 'absent\n');
    // The pattern spells the word so that this grep's own command line does not match it.
    assert.equal(await guest(`grep -l '${WORD[0]}[${WORD[1]}]${WORD.slice(2)}' /proc/[0-9]*/cmdline 2>/dev/null || true`), '', 'no refused command runs in the guest');
  });

  it('with "allow commands and files" set, the same command types into the terminal; input tools still wait', async () => {
    const before = await (await api('')).json() as any;
    const r = await api('/takeover', { allow_commands_and_files: true });
    assert.equal(r.status, 200);
    const allowed = await r.json() as any;
    assert.equal(allowed.allow_commands_and_files, true);
    assert.equal(allowed.control_since, before.control_since, 'still the same take-over');
    assert.equal((await (await api('')).json() as any).allow_commands_and_files, true, 'the lease\'s detail says so');
    assert.equal((await api('/takeover', { allow_commands_and_files: 'yes' })).status, 400, 'the allowance is a boolean');

    const typed = await ok('vm_exec', { shell: TYPE_INTO_SCREEN });
    assert.equal(typed.structuredContent.exit_code, 0, typed.structuredContent.stderr);
    assert.equal(await until(async () => { const t = await guest(`cat ${LINES}`); return t.split('\n').length > 2 ? t : undefined; }, 'the allowed command\'s line in the terminal', 15_000), `before\n${WORD}\n`);
    await ok('vm_put_file', { path: '/tmp/agent-new.txt', content: 'allowed\n' });
    assert.equal(await guest('cat /tmp/agent-new.txt'), 'allowed\n');
    for (const [tool, args] of [['vm_type', { text: 'no' }], ['vm_key', { keys: 'Return' }], ['vm_click', { x: 5, y: 5 }]] as const) {
      const a = await call(tool, args);
      assert.equal(a.structuredContent?.code, 'HUMAN_CONTROL', `${tool} waits whatever the allowance`);
    }

    const steps = (await (await api('/recording')).json() as any).steps.filter((s: any) => s.actor === 'human' && s.tool === 'takeover');
    assert.deepEqual(steps.map((s: any) => s.args), [{ allow_commands_and_files: false }, { allow_commands_and_files: true }], 'the recording shows each choice');
  });

  it('taking over again without the allowance withdraws it; hand-back lets the agent act again', async () => {
    assert.equal((await (await api('/takeover', {})).json() as any).allow_commands_and_files, false);
    assert.equal((await call('vm_exec', { command: ['true'] })).structuredContent.code, 'HUMAN_CONTROL');
    assert.equal((await api('/handback', {})).status, 200);
    assert.equal((await ok('vm_exec', { command: ['echo', 'agent again'] })).structuredContent.stdout, 'agent again\n');
    await ok('vm_put_file', { path: DRAFT, content: 'after hand-back\n' });
    assert.equal(await guest(`cat ${DRAFT}`), 'after hand-back\n');
  });
});
