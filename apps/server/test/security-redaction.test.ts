// Credentials in tool arguments never reach what vmhub writes down, through the BUILT server
// (dist/bin.js --http) on the fake desktop: a clone URL with userinfo and an access_token query,
// vm_dispatch args named api_key / authorization, URLs and assignments in vm_exec and vm_type, and
// clone errors that quote the URL. The recording folder (steps.jsonl), its JSON and HTML exports,
// the audit file, the server's stderr log and the SQLite store files are searched for every
// marker; none may appear.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandbox, startHttp, type HttpServer, type Sandbox } from './harness.ts';

const TOKEN = 'redaction-token-5e0b7c';
const tag = `${process.pid}x`;
const S = (n: number) => `SECRET${n}-${tag}`;

let box: Sandbox;
let server: HttpServer;
let base = '';
let agent: Client;
let lease = '';
let audit = '';

async function start(): Promise<void> {
  server = await startHttp(box, { VMHUB_LOG_LEVEL: 'debug', VMHUB_HTTP_TOKEN: TOKEN, VMHUB_AUDIT_FILE: audit });
  base = server.base;
}

const api = (path: string) => fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
const call = async (name: string, args: Record<string, unknown>) => await agent.callTool({ name, arguments: { lease_id: lease, ...args } }) as any;
const text = (r: any) => JSON.stringify(r);

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

before(async () => {
  box = sandbox({ clone: { allowed_schemes: ['https', 'http'], allow_private_hosts: true, timeout_seconds: 10 } });
  audit = join(box.dir, 'audit.jsonl');
  await start();
  agent = new Client({ name: 'redaction-agent', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  lease = ((await agent.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-desktop' } })).structuredContent as any).lease_id;
  for (let i = 0; ((await agent.callTool({ name: 'vm_lease_status', arguments: { lease_id: lease, wait_seconds: 2 } })).structuredContent as any).status !== 'ready'; i++) {
    if (i > 20) throw new Error('the lease never became ready');
  }
});
after(async () => { await agent?.close(); await server?.stop(); box?.cleanup(); });

describe('secrets in tool arguments (recordings, HTML export, audit, log, store)', () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['vm_clone_repo', { url: `https://user:${S(1)}@127.0.0.1:1/r.git?access_token=${S(2)}`, dest: 'r' }],
    ['vm_dispatch', { verb: 'echo', args: { api_key: S(3), authorization: S(4) } }],
    // Errors that quote the URL: a port out of range (the URL parser) and a refused connection (git's own message).
    ['vm_clone_repo', { url: `https://127.0.0.1:99999/r.git?access_token=${S(5)}` }],
    ['vm_clone_repo', { url: `http://127.0.0.1:1/r.git?access_token=${S(6)}` }],
    // The result side: the guest echoes what it was given.
    ['vm_dispatch', { verb: 'echo', args: { value: `https://u:${S(7)}@git.example/r.git?token=${S(8)}` } }],
    ['vm_exec', { shell: `echo https://u:${S(9)}@git.example/x?access_token=${S(10)}`, timeout_seconds: 10 }],
    ['vm_exec', { command: ['env', `GITHUB_TOKEN=${S(11)}`, 'tool', '--password', S(12)] }],
    ['vm_type', { text: `curl -H "Authorization: Bearer ${S(13)}" https://api.example/` }],
    ['vm_batch', { actions: [{ action: 'type', text: `https://x:${S(14)}@h/` }, { action: 'key', keys: 'Return' }] }],
    // The published forms (issue 28.2): args as JSON object text, the command inside run.
    ['vm_dispatch', { verb: 'echo', args: JSON.stringify({ api_key: S(15) }) }],
    ['vm_exec', { run: { shell: `echo password=${S(16)}` }, timeout_seconds: 10 }],
  ];
  const markers = Array.from({ length: 16 }, (_, i) => S(i + 1));
  let results: any[] = [];

  it('every call is answered, and no error message quotes a credential back', async () => {
    results = [];
    for (const [tool, args] of calls) results.push(await call(tool, args));
    const [cloneCreds, dispatchBad, clonePort, cloneGit] = results;
    assert.equal(cloneCreds.structuredContent.code, 'INVALID_REQUEST', text(cloneCreds));
    assert.equal(dispatchBad.isError, true, 'echo takes only {value}');
    assert.match(clonePort.structuredContent.message, /url "https:\/\/127\.0\.0\.1:99999\/r\.git\?access_token=\*\*\*" has port/);
    assert.match(cloneGit.structuredContent.message, /^git clone failed: .*access_token=\*\*\*/, 'git quoted the URL, scrubbed');
    for (const r of [cloneCreds, dispatchBad, clonePort, cloneGit]) {
      for (const m of markers) assert.ok(!text(r).includes(m), `${m} in ${text(r)}`);
    }
  });

  it('no marker in the recording folder, its JSON and HTML exports, the audit file, the server log or the store', async () => {
    // Recordings are written off the call's path: wait until every call above is a step.
    let steps: any[] = [];
    for (let i = 0; i < 100; i++) {
      steps = ((await (await api(`/api/leases/${lease}/recording`)).json()) as { steps: any[] }).steps;
      if (calls.every(([tool]) => steps.filter((s) => s.tool === tool).length >= calls.filter(([t]) => t === tool).length)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const html = await (await api(`/api/leases/${lease}/recording?format=html`)).text();

    const haystacks: Record<string, string> = {
      'recording JSON': JSON.stringify(steps),
      'HTML export': html,
      'audit file': readFileSync(audit, 'utf8'),
      'server stderr': server.stderr(),
    };
    for (const file of files(join(box.dir, 'recordings'))) haystacks[file] = readFileSync(file, 'latin1');
    for (const name of readdirSync(box.dir).filter((n) => n.startsWith('vmhub.db'))) haystacks[name] = readFileSync(join(box.dir, name), 'latin1');
    assert.ok(Object.keys(haystacks).some((k) => k.endsWith('steps.jsonl')), 'the recording folder was searched');
    assert.ok(Object.keys(haystacks).includes('vmhub.db'), 'the store was searched');
    for (const tool of ['vm_clone_repo', 'vm_dispatch', 'vm_exec']) assert.match(haystacks['audit file']!, new RegExp(`"tool":"${tool}"`));
    const found: string[] = [];
    for (const [where, hay] of Object.entries(haystacks)) for (const m of markers) if (hay.includes(m)) found.push(`${m} in ${where}`);
    assert.deepEqual(found, []);

    // Redacted, not dropped: the steps keep the shape of what was asked.
    const clone = steps.find((s) => s.tool === 'vm_clone_repo');
    assert.equal(clone.args.url, 'https://***@127.0.0.1:1/r.git?access_token=***');
    const dispatch = steps.find((s) => s.tool === 'vm_dispatch');
    assert.deepEqual(dispatch.args, { verb: 'echo', args: { api_key: '[redacted]', authorization: '[redacted]' } });
    assert.deepEqual(steps.find((s) => s.tool === 'vm_batch').args.actions[1], { action: 'key', keys: 'Return' }, 'vm_key keys stay readable');
    assert.match(html, /data-tool="vm_clone_repo"/);
    assert.match(html, /access_token=\*\*\*/);
  });
});
