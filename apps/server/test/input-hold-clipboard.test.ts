// Issue 33, input: vm_key {action: "down" | "up"}, vm_type {cadence: "human"} and
// vm_get_clipboard through the BUILT server over HTTP, with two principals (alice, bob) on one
// server. On the fake desktop (its state read from its file in the machine): held keys are released
// when a person takes over (the live API) and when the lease's session ends (vm_lease_restart);
// the clipboard is read only when the person allowed commands and files; bob gets NOT_FOUND for
// alice's lease and changes nothing. On a REAL Docker debian-x11: shift held through the server
// turns letters uppercase, the take-over lets it go (a letter after the hand-back is lowercase),
// human cadence delivers every character, vm_get_clipboard returns what xclip put there — each
// read from a file the guest's terminal writes, with `docker exec`, not from the agent's answers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { until } from '@vmhub/test-kit';
import { startHttp } from './harness.ts';
import { clientReady as ready, httpSuite, type ToolResult } from './http-harness.ts';

const run = promisify(execFile);
const TOKENS = { alice: 'tok-alice-hold-5e2a9c', bob: 'tok-bob-hold-71f3d0' };
const suite = httpSuite((box) => {
  // The fake plugins (sandbox) and Docker's debian-x11, without the shared framebuffer: input
  // through xdotool in the guest (the XTEST path has its own tests in adapter-x11).
  const config = JSON.parse(readFileSync(box.configFile, 'utf8'));
  config.providers = { ...config.providers, docker: { framebuffer: false } };
  writeFileSync(box.configFile, JSON.stringify(config));
  return startHttp(box, { HOME: box.dir, VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob });
}, { http: { tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] } });
after(async () => { await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${suite.box.instance}-) 2>/dev/null || true`]); });

const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<ToolResult>;
async function ok(c: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await call(c, name, args);
  assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}
async function error(c: Client, name: string, args: Record<string, unknown>, code: string): Promise<any> {
  const r = await call(c, name, args);
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} must fail: ${JSON.stringify(r.structuredContent)}`);
  assert.equal(r.structuredContent.code, code, `${name}: ${r.structuredContent.message}`);
  return r.structuredContent;
}
const api = (lease: string, path: string, body?: unknown) => fetch(`${suite.srv.base}/api/leases/${lease}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { Authorization: `Bearer ${TOKENS.alice}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
/** The fake desktop's state, read from its file in the machine (vm_get_file keeps working while a person holds the lease). */
async function desktop(c: Client, lease: string): Promise<any> {
  const r = await call(c, 'vm_get_file', { lease_id: lease, path: '/.vmhub-desktop.json' });
  if (r.structuredContent?.code === 'NOT_FOUND') return { typed: '', held: [] }; // nothing changed yet
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  return JSON.parse(r.structuredContent.content);
}

describe('fake desktop: held keys, the take-over and the clipboard through the server', () => {
  let alice: Client, bob: Client, lease = '';

  it('bob cannot touch alice\'s lease: NOT_FOUND, nothing held', async () => {
    alice = await suite.client(TOKENS.alice, 'alice');
    bob = await suite.client(TOKENS.bob, 'bob');
    lease = (await ok(alice, 'vm_lease_create', { template: 'fake-desktop' })).lease_id;
    await ready(alice, lease);
    for (const [tool, args] of [['vm_get_clipboard', {}], ['vm_key', { keys: 'shift', action: 'down' }], ['vm_type', { text: 'bob', cadence: 'human' }]] as const) {
      const e = await error(bob, tool, { lease_id: lease, ...args }, 'NOT_FOUND');
      assert.doesNotMatch(e.message, /alice/);
    }
    const s = await desktop(alice, lease);
    assert.deepEqual(s.held ?? [], []);
    assert.equal(s.typed, '');
    assert.equal((await ok(alice, 'vm_get_clipboard', { lease_id: lease })).text, 'fake clipboard');
  });

  it('keys held by the agent are released when a person takes over; the clipboard needs their allowance', async () => {
    await ok(alice, 'vm_key', { lease_id: lease, keys: 'ctrl+shift', action: 'down' });
    assert.deepEqual((await desktop(alice, lease)).held, ['ctrl+shift']);
    const taken = await api(lease, '/takeover', {});
    assert.equal(taken.status, 200);
    assert.deepEqual((await desktop(alice, lease)).held, [], 'released at take-over');
    const e = await error(alice, 'vm_get_clipboard', { lease_id: lease }, 'HUMAN_CONTROL');
    assert.match(e.message, /did not allow commands and files/);
    assert.equal((await api(lease, '/takeover', { allow_commands_and_files: true })).status, 200);
    assert.equal((await ok(alice, 'vm_get_clipboard', { lease_id: lease })).text, 'fake clipboard');
    await error(alice, 'vm_key', { lease_id: lease, keys: 'shift', action: 'down' }, 'HUMAN_CONTROL');
    assert.equal((await api(lease, '/handback', {})).status, 200);
  });

  it('keys still held are released when the lease\'s session ends (vm_lease_restart)', async () => {
    await ok(alice, 'vm_key', { lease_id: lease, keys: 'alt', action: 'down' });
    assert.deepEqual((await desktop(alice, lease)).held, ['alt']);
    await ok(alice, 'vm_lease_restart', { lease_id: lease });
    await ready(alice, lease);
    const s = await desktop(alice, lease);
    assert.deepEqual(s.held, [], 'the session\'s end let go of alt');
    assert.deepEqual(s.keys.slice(-1), ['down:alt']);
  });

  it('human cadence: every character, in order, no faster than its pauses; over the limit nothing', async () => {
    const started = Date.now();
    await ok(alice, 'vm_type', { lease_id: lease, text: 'ab, cd', cadence: 'human' });
    assert.ok(Date.now() - started >= 5 * 30 + 2 * 80, 'at least the minimum pauses');
    assert.equal((await desktop(alice, lease)).typed, 'ab, cd');
    const e = await error(alice, 'vm_type', { lease_id: lease, text: 'y'.repeat(301), cadence: 'human' }, 'INVALID_REQUEST');
    assert.match(e.message, /at most 300 characters/);
    assert.equal((await desktop(alice, lease)).typed, 'ab, cd', 'nothing typed');
  });

  it('vm_capabilities says which adapters hold keys and read the clipboard', async () => {
    const fake = await ok(alice, 'vm_capabilities', { template: 'fake-desktop' });
    assert.ok(fake.capabilities.includes('key_hold') && fake.capabilities.includes('get_clipboard'));
    const x11 = await ok(alice, 'vm_capabilities', { template: 'debian-x11' });
    assert.ok(x11.capabilities.includes('key_hold') && x11.capabilities.includes('get_clipboard'), JSON.stringify(x11.capabilities));
    // Every other adapter here (hyprland/sway, console, …) cannot hold keys, and says why.
    const others = (await ok(alice, 'vm_list_templates', {})).templates.filter((t: any) => !['x11', 'fake', 'stub'].includes(t.adapter));
    assert.ok(others.length > 0, 'templates of other adapters are offered');
    for (const t of others) {
      const caps = await ok(alice, 'vm_capabilities', { template: t.id });
      assert.ok(!caps.capabilities.includes('key_hold'), `${t.id} (${t.adapter}) does not claim key_hold`);
      assert.match(caps.unavailable.find((u: any) => u.capability === 'key_hold')?.reason ?? '', /does not provide it|not/, `${t.id} says why`);
    }
  });
});

describe('debian-x11 (Docker): shift held through the server, released at take-over; cadence; clipboard', () => {
  let alice: Client, bob: Client, lease = '', container = '';
  const LINES = '/tmp/hold-lines.txt';
  const guest = async (script: string) => (await run('docker', ['exec', '-u', 'root', container, 'sh', '-c', script])).stdout;
  const lines = async (n: number) => until(async () => { const t = await guest(`cat ${LINES} 2>/dev/null || true`); return t.split('\n').length > n ? t : undefined; }, `${n} lines in the terminal`, 20_000);

  it('a terminal records each line it reads', { timeout: 240_000 }, async () => {
    alice = await suite.client(TOKENS.alice, 'alice-x11');
    bob = await suite.client(TOKENS.bob, 'bob-x11');
    lease = (await ok(alice, 'vm_lease_create', { template: 'debian-x11', ttl_seconds: 900 })).lease_id;
    container = `vmhub-${suite.box.instance}-${lease}`;
    await ready(alice, lease);
    const w = (await ok(alice, 'vm_launch', { lease_id: lease, app: 'xterm', args: ['-T', 'hold-terminal', '-e', 'sh', '-c', `while IFS= read -r l; do printf '%s\\n' "$l" >> ${LINES}; done`], wait_seconds: 15 })).window;
    await ok(alice, 'vm_focus', { lease_id: lease, window: w.id });
  });

  it('shift down → letters uppercase; the take-over releases shift: after the hand-back a letter is lowercase', async () => {
    await ok(alice, 'vm_key', { lease_id: lease, keys: 'shift', action: 'down' });
    await ok(alice, 'vm_key', { lease_id: lease, keys: 'a b' });
    assert.equal((await api(lease, '/takeover', {})).status, 200);
    assert.equal((await api(lease, '/handback', {})).status, 200);
    await ok(alice, 'vm_key', { lease_id: lease, keys: 'c Return' });
    assert.equal(await lines(1), 'ABc\n');
  });

  it('human cadence delivers every character', async () => {
    await ok(alice, 'vm_type', { lease_id: lease, text: 'Slow, steady: é ✓ done.\n', cadence: 'human' });
    assert.equal(await lines(2), 'ABc\nSlow, steady: é ✓ done.\n');
  });

  it('vm_get_clipboard returns what xclip put on the guest clipboard; bob gets NOT_FOUND', async () => {
    const text = 'copied in the guest ✓ Привет';
    await run('docker', ['exec', '-u', 'user', '-e', 'DISPLAY=:0', container, 'sh', '-c', `printf %s '${text}' | xclip -selection clipboard -i >/dev/null 2>&1`]);
    assert.equal((await ok(alice, 'vm_get_clipboard', { lease_id: lease })).text, text);
    await error(bob, 'vm_get_clipboard', { lease_id: lease }, 'NOT_FOUND');
    await ok(alice, 'vm_lease_release', { lease_id: lease });
  });
});
