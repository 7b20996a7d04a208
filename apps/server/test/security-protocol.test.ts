// Protocol edges, command line, configuration and Node version, attacked on the BUILT server
// (dist/bin.js) through the SDK client over stdio, and over raw stdio where the SDK client cannot
// send the malformed thing. Each class counts attempts and outcomes (typed answers, crashes,
// hangs) and prints them (t.diagnostic) for docs/security.md.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_CODES } from '@vmhub/core';
import { BIN, connect, sandbox, type Sandbox, type Session } from './harness.ts';

const KNOWN_CODES = new Set(Object.keys(ERROR_CODES));
// The in-process hub of the fuzzing suite logs to this process's stderr: keep it to warnings.
process.env.VMHUB_LOG_LEVEL ??= 'warn';

interface Tally { attempts: number; typed: number; crashes: number; hangs: number; untyped: number }
const tally = (): Tally => ({ attempts: 0, typed: 0, crashes: 0, hangs: 0, untyped: 0 });
const report = (t: TestContext, what: string, n: Tally) => t.diagnostic(`${what}: ${n.attempts} attempts, ${n.typed} typed, ${n.untyped} untyped, ${n.hangs} hangs, ${n.crashes} crashes`);

function isTypedError(r: { isError?: boolean; structuredContent?: any }, code?: string): boolean {
  const sc = r.structuredContent;
  return r.isError === true && sc && KNOWN_CODES.has(sc.code) && (code === undefined || sc.code === code) && typeof sc.message === 'string' && typeof sc.retryable === 'boolean' && typeof sc.hint === 'string';
}

let box: Sandbox;
let s: Session;
before(async () => {
  box = sandbox();
  s = await connect(box);
});
after(async () => { await s.close(); box.cleanup(); });

describe('security: tools/call edges (SDK client over stdio)', () => {
  // The SDK v2 checks tools/call against the spec's schema before any handler (non-object
  // `arguments`, a `name` that is no string): those are answered with its typed protocol error,
  // -32602 "Invalid tools/call request" naming the field — never a crash, a hang or a raw dump.
  const sdkInvalidParams = (r: any) => /-32602: Invalid tools\/call request/.test(r?.protocolError ?? '');
  it('non-object arguments and malformed params → -32602 Invalid tools/call request (the SDK\'s check)', async (t) => {
    const n = tally();
    const badArgs: unknown[] = ['text', '', 5, 0, -1.5, true, false, null, [], [1, 2], ['lease_id', 'x'], [{ lease_id: 'x' }]];
    for (const tool of ['vm_health', 'vm_screenshot', 'vm_exec', 'vm_nope']) {
      for (const args of badArgs) {
        n.attempts++;
        const r = await s.client.request({ method: 'tools/call', params: { name: tool, arguments: args as never } }, CallToolResultSchema).catch((e: Error) => ({ protocolError: e.message }) as any);
        if (sdkInvalidParams(r)) n.typed++;
        else n.untyped++;
        assert.ok(sdkInvalidParams(r), `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r)}`);
        assert.match(r.protocolError, /arguments/, 'the error names the field');
      }
    }
    const badParams: unknown[] = [{ arguments: {} }, { name: 5, arguments: {} }, { name: null }, { name: ['vm_health'] }, { name: { x: 1 } }, {}];
    for (const params of badParams) {
      n.attempts++;
      const r = await s.client.request({ method: 'tools/call', params: params as never }, CallToolResultSchema).catch((e: Error) => ({ protocolError: e.message }) as any);
      if (sdkInvalidParams(r)) n.typed++;
      else n.untyped++;
    }
    const health = await s.call('vm_health');
    assert.equal(health.isError, undefined, 'still serving');
    report(t, 'non-object arguments / malformed params', n);
    assert.equal(n.typed, n.attempts);
  });

  it('unknown tool names → NOT_FOUND with structuredContent {code, message, retryable: false, hint}', async (t) => {
    const n = tally();
    const names = ['vm_nope', '', ' ', 'VM_HEALTH', 'vm_health ', ' vm_health', 'health', 'screenshot', 'vm-health', '../vm_health', 'vm_health\u0000', 'vm_\u00e9', '\u202evm_health', 'x'.repeat(10_000), '__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    for (const name of names) {
      n.attempts++;
      const r = await s.client.callTool({ name, arguments: {} }).catch((e: Error) => ({ protocolError: e.message }) as any);
      if (isTypedError(r, 'NOT_FOUND') && r.structuredContent.retryable === false) n.typed++;
      else n.untyped++;
      assert.ok(String(r.structuredContent?.message ?? '').length < 300, 'the message does not echo a huge name');
    }
    const r = await s.client.callTool({ name: 'screenshot', arguments: {} });
    assert.match((r.structuredContent as any).message, /did you mean vm_screenshot/);
    assert.match((r.structuredContent as any).hint, /tools\/list/);
    report(t, 'unknown tool names', n);
    assert.equal(n.typed, n.attempts);
  });

  it('empty and blank lease ids → typed errors; vm_capabilities {lease_id: ""} names lease_id', async (t) => {
    const n = tally();
    const cap = await s.call('vm_capabilities', { lease_id: '' });
    assert.ok(isTypedError(cap, 'INVALID_REQUEST'), JSON.stringify(cap.structuredContent));
    assert.match(cap.structuredContent.message, /lease_id/);
    assert.doesNotMatch(cap.structuredContent.message, /undefined/);
    for (const args of [{ lease_id: '' }, { lease_id: '', template: 'fake-desktop' }, { lease_id: ' ' }, { lease_id: '\u0000' }, { template: '' }, { lease_id: 'x'.repeat(65) }]) {
      n.attempts++;
      const r = await s.call('vm_capabilities', args);
      if (isTypedError(r) && !/undefined/.test(r.structuredContent.message)) n.typed++;
      else n.untyped++;
    }
    for (const tool of ['vm_screenshot', 'vm_lease_status', 'vm_lease_release', 'vm_exec']) {
      n.attempts++;
      const r = await s.call(tool, { lease_id: '', ...(tool === 'vm_exec' ? { command: ['true'] } : {}) });
      if (isTypedError(r) && !/undefined/.test(r.structuredContent.message)) n.typed++;
      else n.untyped++;
    }
    report(t, 'empty lease ids', n);
    assert.equal(n.typed, n.attempts);
  });
});

/** The built server on raw stdio: lines in, JSON-RPC answers out, matched by id. */
class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  readonly answers: any[] = [];
  #buf = '';
  #waiters: Array<() => void> = [];
  exited: number | null | undefined;

  constructor(b: Sandbox) {
    this.child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? b.dir, VMHUB_CONFIG: b.configFile, VMHUB_LOG_LEVEL: 'error' } });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.#buf += d;
      let nl: number;
      while ((nl = this.#buf.indexOf('\n')) !== -1) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        try { this.answers.push(JSON.parse(line)); } catch { this.answers.push({ unparseable: line }); }
        for (const w of this.#waiters.splice(0)) w();
      }
    });
    this.child.stderr.resume();
    this.child.on('exit', (code) => { this.exited = code; for (const w of this.#waiters.splice(0)) w(); });
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.child.stdin.write(data, (err) => (err ? reject(err) : resolve())));
  }

  /** The first answer (from now) that `match` accepts, or undefined after `ms`. */
  async next(match: (a: any) => boolean, ms: number): Promise<any> {
    const from = this.answers.length;
    const end = Date.now() + ms;
    for (;;) {
      const found = this.answers.slice(from).find(match);
      if (found) return found;
      if (this.exited !== undefined || Date.now() > end) return undefined;
      await new Promise<void>((resolve) => { this.#waiters.push(resolve); setTimeout(resolve, 200); });
    }
  }

  async initialize(): Promise<void> {
    const p = this.next((a) => a.id === 'init', 10_000);
    await this.write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) + '\n');
    assert.ok(await p, 'initialize answered');
    await this.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  }

  async health(id: number): Promise<boolean> {
    const p = this.next((a) => a.id === id, 15_000);
    await this.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'vm_health', arguments: {} } }) + '\n');
    const r = await p;
    return Boolean(r?.result && !r.result.isError);
  }
}

describe('security: oversized and malformed messages (raw stdio)', () => {
  let raw: RawStdio;
  before(async () => {
    raw = new RawStdio(box);
    await raw.initialize();
  });
  after(() => { raw.child.kill(); });

  it('a request over the size limit is answered with its own id, at once; the server keeps serving', { timeout: 60_000 }, async (t) => {
    const n = tally();
    const payload = 'A'.repeat(97 * 1024 * 1024);
    const variants: Array<{ id: string | number; line: () => Buffer }> = [
      // The SDK client's own key order: the id comes last, after the huge params.
      { id: 901, line: () => Buffer.from(`{"method":"tools/call","params":{"name":"vm_put_file","arguments":{"lease_id":"x","path":"/tmp/a","content_base64":"${payload}"}},"jsonrpc":"2.0","id":901}\n`) },
      { id: 'big-"1"', line: () => Buffer.from(`{"jsonrpc":"2.0","id":"big-\\"1\\"","method":"tools/call","params":{"name":"vm_type","arguments":{"lease_id":"x","text":"${payload}"}}}\n`) },
      { id: 903, line: () => Buffer.from(`{"params":{"id":7,"name":"vm_put_file","arguments":{"content":"${payload}","id":8}},"method":"tools/call","id" : 903 ,"jsonrpc":"2.0"}\n`) },
    ];
    let slowest = 0;
    for (const v of variants) {
      n.attempts++;
      const started = Date.now();
      const answer = raw.next((a) => a.id === v.id || (a.id === null && a.error), 20_000);
      await raw.write(v.line());
      const a = await answer;
      slowest = Math.max(slowest, Date.now() - started);
      if (raw.exited !== undefined) n.crashes++;
      else if (!a) n.hangs++;
      else if (a.id === v.id && a.error?.code === -32600 && /larger than/.test(a.error.message)) n.typed++;
      else n.untyped++;
      assert.ok(await raw.health(1000 + n.attempts), 'still serving after an oversized request');
    }
    t.diagnostic(`slowest oversized answer: ${slowest} ms (each line ${(payload.length / 1048576).toFixed(0)} MiB)`);
    report(t, 'oversized requests (stdio)', n);
    assert.equal(n.typed, n.attempts);
  });

  it('lines that are not JSON, or not JSON-RPC, get an error with their id when it can be read', async (t) => {
    const n = tally();
    const cases: Array<{ line: string; id: string | number | null; code: number }> = [
      { line: '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{', id: 77, code: -32700 },
      { line: '{"jsonrpc":"2.0","method":"tools/call","id":"s-78","params":{"name":"vm_health",}}', id: 's-78', code: -32700 },
      { line: 'not json at all', id: null, code: -32700 },
      { line: '{"jsonrpc":"2.0","id":79,"method":5}', id: 79, code: -32600 },
      { line: '{"jsonrpc":"1.0","id":80,"method":"tools/list"}', id: 80, code: -32600 },
      { line: '{"id":81,"method":"tools/list"}', id: 81, code: -32600 },
    ];
    for (const c of cases) {
      n.attempts++;
      const answer = raw.next((a) => (c.id === null ? a.id === null && a.error?.code === c.code : a.id === c.id), 5_000);
      await raw.write(c.line + '\n');
      const a = await answer;
      if (raw.exited !== undefined) n.crashes++;
      else if (!a) n.hangs++;
      else if (a.error?.code === c.code) n.typed++;
      else n.untyped++;
    }
    assert.ok(await raw.health(2000), 'still serving');
    report(t, 'malformed lines (stdio)', n);
    assert.equal(n.typed, n.attempts);
  });
});

function run(args: string[], env: Record<string, string> = {}, node = process.execPath, pre: string[] = []): { code: number | null; stderr: string; stdout: string } {
  const r = spawnSync(node, [...pre, BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error', ...env }, encoding: 'utf8', timeout: 20_000, input: '' });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

const oneLine = (text: string) => text.trim().split('\n').length === 1;
const hasStack = (text: string) => /\n\s+at /.test(text);

describe('security: command line, configuration and Node version (built bin)', () => {
  it('unknown flags and bad values → one usage line, exit 2, no stack', (t) => {
    const n = tally();
    const cases = [['--http', '--bogus'], ['--bogus'], ['-x'], ['--http', '--port'], ['--http', '--port', 'abc'], ['--http', '--port', '70000'], ['--http', '--port', '-1'], ['--http=yes'], ['--port', '1'], ['serve'], ['--http', 'extra'], ['--http', '--host'], ['--HTTP']];
    for (const args of cases) {
      n.attempts++;
      const r = run(args);
      if (r.code === 2 && oneLine(r.stderr) && !hasStack(r.stderr) && /vmhub-server: .*--help/.test(r.stderr)) n.typed++;
      else n.untyped++;
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(oneLine(r.stderr) && !hasStack(r.stderr), `${args.join(' ')}: ${r.stderr}`);
    }
    assert.match(run(['--http', '--bogus']).stderr, /unknown option --bogus/);
    report(t, 'bad command lines', n);
    assert.equal(n.typed, n.attempts);
  });

  it('unknown config keys at every level stop the server, naming the key and the nearest valid one', (t) => {
    const n = tally();
    const template = { id: 'x', provider: 'fake', adapter: 'fake', golden: 'fake:golden' };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ templats: [] }, /"templats": did you mean "templates"/],
      [{ leases: { default_ttl: 60 } }, /"leases\.default_ttl": did you mean "leases\.default_ttl_seconds"/],
      [{ templates: [{ ...template, golen: 'g' }] }, /"templates\[0\]\.golen": did you mean "templates\[0\]\.golden"/],
      [{ http: { tokens: [{ principal: 'ci', token_env: 'X', token: 'inline-secret' }] } }, /"http\.tokens\[0\]\.token"/],
      [{ http: { idle_seconds: 5 } }, /"http\.idle_seconds"/],
      [{ clone: { credentials: { 'h.example': { token_env: 'X', user: 'u' } } } }, /"clone\.credentials\.h\.example\.user"/],
      [{ Policy: {} }, /"Policy": did you mean "policy"/],
    ];
    for (const [extra, expected] of cases) {
      n.attempts++;
      const file = join(box.dir, 'unknown-key.json');
      writeFileSync(file, JSON.stringify({ instance: box.instance, db: box.db, plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: box.fakeDir } }, ...extra }));
      const r = run([], { VMHUB_CONFIG: file });
      if (r.code === 2 && expected.test(r.stderr) && oneLine(r.stderr) && !hasStack(r.stderr)) n.typed++;
      else n.untyped++;
      assert.match(r.stderr, expected);
      assert.equal(r.code, 2);
      assert.doesNotMatch(r.stderr, /inline-secret/, 'a value is never echoed');
    }
    report(t, 'unknown config keys', n);
    assert.equal(n.typed, n.attempts);
  });

  it('refuses a Node.js older than 22 in one line naming the version found', (t) => {
    const n = tally();
    const fake = (v: string) => [`--import=data:text/javascript,Object.defineProperty(process,"versions",{value:{...process.versions,node:"${v}"}});Object.defineProperty(process,"version",{value:"v${v}"})`];
    for (const v of ['20.11.1', '18.19.0', '21.7.3', '16.0.0']) {
      n.attempts++;
      const r = run(['--version'], {}, process.execPath, fake(v));
      if (r.code === 1 && oneLine(r.stderr) && r.stderr.includes(`v${v}`) && /Node\.js 22\+/.test(r.stderr)) n.typed++;
      else n.untyped++;
    }
    // A real old Node, where the machine has one (Debian 12 ships 20): the bin must parse and refuse.
    const system = spawnSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (system.status === 0 && Number(system.stdout.split('.')[0]) < 22) {
      n.attempts++;
      const r = run(['--version'], {}, '/usr/bin/node');
      if (r.code === 1 && oneLine(r.stderr) && r.stderr.includes(`v${system.stdout.trim()}`)) n.typed++;
      else n.untyped++;
      t.diagnostic(`real Node ${system.stdout.trim()}: ${r.stderr.trim()}`);
    }
    const ok = run(['--version'], {}, process.execPath, fake('22.0.0'));
    assert.equal(ok.code, 0, ok.stderr);
    report(t, 'old Node versions', n);
    assert.equal(n.typed, n.attempts);
  });
});

// Property-based fuzzing of every tool's input through the in-process router (the real hub, fake
// plugins, SDK client over an in-memory transport): inputs shaped by each tool's JSON Schema,
// mixed with arbitrary JSON and the spellings attackers try. Every answer must be a typed error
// with a known code or a success matching the tool's full output schema, and vm_health must
// answer after every call. Seeded and bounded: 30 runs per tool.
describe('security: fuzzing every tool input (fast-check, in-process)', () => {
  const RUNS = 30;
  const LIVE = '$LIVE';
  let internal: string[] = [];
  let fbox: Sandbox;
  let hub: import('../src/index.ts').VmhubHub;
  let client: import('@modelcontextprotocol/sdk/client/index.js').Client;
  let fc: typeof import('fast-check');
  let core: typeof import('@vmhub/core');

  before(async () => {
    fc = await import('fast-check');
    core = await import('@vmhub/core');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const { loadConfig } = await import('@vmhub/core/config');
    const { createVmhubHub } = await import('../src/index.ts');
    fbox = sandbox({ leases: { max_per_owner: 1000, max_total: 1000 }, clone: { allowed_hosts: ['clone.invalid'], timeout_seconds: 5 } }, [
      { id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 0 } },
      { id: 'fake-stub', provider: 'fake', adapter: 'stub', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 0 } },
    ]);
    // Every toolset: each tool is fuzzed, and vm_health (toolset admin) checks the server after each call.
    hub = createVmhubHub({ config: loadConfig({ file: fbox.configFile, env: { VMHUB_TOOLSETS: 'all' } }) });
    const { mcp } = hub.session();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await mcp.connect(b);
    client = new Client({ name: 'fuzz', version: '1' });
    await client.connect(a);
  });
  after(async () => { await client?.close(); await hub?.close(); fbox?.cleanup(); });

  async function callRaw(name: string, args: unknown): Promise<any> {
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise((resolve) => { timer = setTimeout(() => resolve({ hang: true }), 30_000); });
    try {
      return await Promise.race([client.request({ method: 'tools/call', params: { name, arguments: args as never } }, CallToolResultSchema).catch((e: Error) => ({ protocolError: e.message })), hang]);
    } finally { clearTimeout(timer); }
  }

  async function liveLease(): Promise<string> {
    const created = await callRaw('vm_lease_create', { template: 'fake-desktop' });
    const id = created.structuredContent.lease_id as string;
    for (let i = 0; i < 50; i++) {
      const st = await callRaw('vm_lease_status', { lease_id: id, wait_seconds: 2 });
      if (st.structuredContent?.status === 'ready') return id;
    }
    throw new Error('the fuzzing lease never became ready');
  }

  /** Values attackers and careless agents send for a field of this name. */
  function spellings(key: string): import('fast-check').Arbitrary<unknown> | undefined {
    switch (key) {
      case 'lease_id': return fc.oneof({ weight: 6, arbitrary: fc.constant(LIVE) }, fc.constantFrom('', ' ', '00000000-0000-4000-8000-000000000000', '../x', '\u0000'), fc.string({ maxLength: 70 }));
      case 'template': return fc.constantFrom('fake-desktop', 'fake-stub', 'nope', '', '../fake-desktop', 'FAKE-DESKTOP');
      case 'command': return fc.constantFrom(['echo', 'hi'], ['true'], ['false'], ['cat', '/etc/hostname'], ['sleep', '0'], ['no-such-command'], ['echo', '$(id)', '`id`', ';id'], ['-rf'], ['']);
      case 'shell': return fc.constantFrom('echo hi', 'true', 'exit 3', 'cat </dev/null', 'echo $((1+1))');
      case 'cwd': return fc.constantFrom('/', '/tmp', '~', '../..', 'rel', '/no/such/dir', '/tmp\u0000x');
      case 'url': return fc.constantFrom('https://clone.invalid/r.git', 'git://127.1:9/secret', 'git://0x7f000001/x', 'http://[::1]/x', 'file:///etc', '/etc', '--upload-pack=touch /tmp/pwn', 'https://user:pw@clone.invalid/r', 'ssh://git@10.0.0.1/x', 'ext::sh -c id', 'https://clone.invalid/r.git#-x');
      case 'path': return fc.constantFrom('/tmp/fuzz.txt', '~/fuzz.txt', 'fuzz.txt', '../etc/passwd', '/', '/tmp/a\u0000b', `/tmp/${'x'.repeat(300)}`, `/${'a/'.repeat(2000)}f`, '/tmp/dir/', '/proc/self/environ', '\\\\server\\share');
      case 'text': case 'keys': return fc.constantFrom('hello', 'ctrl+c', 'ctrl+alt+Delete', 'a\nb', `${'a'.repeat(299)}\u0000`, '\u001b[2J', 'Return', 'super', '\r\n', '\u202e');
      case 'verb': return fc.constantFrom('echo', 'rm_rf', '', '__proto__');
      case 'wait_seconds': return fc.constantFrom(0, 1, -1, 1.5, 30, 31);
      case 'timeout_seconds': return fc.constantFrom(1, 2, 0, -1, 601, 0.5);
      case 'content_base64': return fc.constantFrom('aGk=', '%%%', '', 'aGk', '====');
      default: return undefined;
    }
  }

  function typed(key: string, schema: any, depth: number): import('fast-check').Arbitrary<unknown> {
    // An exclusive choice (vm_exec run, vm_click target, vm_batch steps): any branch, or a mix.
    if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((b: any) => value(key, b, depth + 1)));
    if (Array.isArray(schema.enum)) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, fc.string({ maxLength: 8 }));
    switch (schema.type) {
      case 'string': {
        const over = typeof schema.maxLength === 'number' && schema.maxLength <= 70_000 ? [fc.constant('x'.repeat(schema.maxLength + 1))] : [];
        return fc.oneof(fc.string({ maxLength: 24 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('', ' ', '\u0000', 'a\nb', '\u001b[2J', '\ud800'), ...over);
      }
      case 'integer': return fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.constantFrom(-1, 0, 1, 2 ** 31, 2 ** 53, 0.5));
      case 'number': return fc.oneof(fc.double({ min: -10, max: 5000, noNaN: true }), fc.constantFrom(0, -0.0001, 1e9, 1e308));
      case 'boolean': return fc.boolean();
      case 'array': return depth > 3 ? fc.constant([]) : fc.array(value(key, schema.items ?? {}, depth + 1), { maxLength: 4 });
      case 'object':
        if (schema.properties) return object(schema, depth + 1);
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      default: return fc.jsonValue({ maxDepth: 2 });
    }
  }

  function value(key: string, schema: any, depth: number): import('fast-check').Arbitrary<unknown> {
    const special = spellings(key);
    const shaped = typed(key, schema, depth);
    return fc.oneof({ weight: special ? 4 : 0, arbitrary: special ?? shaped }, { weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) });
  }

  function object(schema: any, depth: number): import('fast-check').Arbitrary<Record<string, unknown>> {
    const model = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, value(k, v, depth)]));
    const full = fc.record(model, { requiredKeys: (schema.required ?? []) as never[] });
    const loose = fc.record(model, { requiredKeys: [] });
    const extra = fc.tuple(full, fc.constantFrom('z', 'surprise', '__proto__', 'constructor', 'lease_id '), fc.jsonValue({ maxDepth: 1 })).map(([r, k, v]) => ({ ...r, [k]: v }));
    return fc.oneof({ weight: 6, arbitrary: full }, { weight: 1, arbitrary: loose }, { weight: 1, arbitrary: extra });
  }

  const substitute = (v: unknown, live: string): unknown =>
    v === LIVE ? live : Array.isArray(v) ? v.map((x) => substitute(x, live)) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, live)])) : v;

  it('every tool: 30 seeded random inputs → typed answers, and the server keeps serving', { timeout: 120_000 }, async (t) => {
    const totals = { attempts: 0, ok: 0, typed: 0, internal: 0, untyped: 0, hangs: 0, healthFailures: 0 };
    const codes = new Map<string, number>();
    const problems: string[] = [];
    const started = Date.now();
    for (const [i, name] of core.TOOL_NAMES.entries()) {
      const tool = core.TOOLS[name];
      const check = core.compile(tool.output);
      let live = await liveLease();
      await fc.assert(fc.asyncProperty(object(tool.input, 0), async (generated) => {
        const args = substitute(generated, live);
        totals.attempts++;
        const r = await callRaw(name, args);
        const sc = r.structuredContent;
        if (r.hang) { totals.hangs++; problems.push(`${name} hung: ${JSON.stringify(args).slice(0, 200)}`); }
        else if (r.isError && isTypedError(r)) {
          totals.typed++;
          codes.set(sc.code, (codes.get(sc.code) ?? 0) + 1);
          if (sc.code === 'INTERNAL') { totals.internal++; problems.push(`${name} INTERNAL: ${sc.message.slice(0, 200)} ← ${JSON.stringify(args).slice(0, 200)}`); }
        } else if (!r.isError && r.structuredContent && check(sc)) totals.ok++;
        else { totals.untyped++; problems.push(`${name} untyped: ${JSON.stringify(r).slice(0, 300)} ← ${JSON.stringify(args).slice(0, 200)}`); }
        const health = await callRaw('vm_health', {});
        if (health.isError || !health.structuredContent) { totals.healthFailures++; problems.push(`vm_health failed after ${name}`); }
        // A fuzzed release or a lease tool that ended the lease: keep a live one for the next runs.
        if (name === 'vm_lease_release' && !r.isError) live = await liveLease();
        return true;
      }), { numRuns: RUNS, seed: 0x5eed + i, endOnFailure: true });
    }
    t.diagnostic(`fuzzing: ${core.TOOL_NAMES.length} tools × ${RUNS} runs in ${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(totals)}`);
    t.diagnostic(`fuzzing error codes: ${JSON.stringify(Object.fromEntries([...codes].sort((a, b) => b[1] - a[1])))}`);
    for (const p of problems.slice(0, 20)) t.diagnostic(p);
    assert.equal(totals.untyped + totals.hangs + totals.healthFailures, 0, problems.slice(0, 5).join('\n'));
    internal = problems.filter((p) => p.includes('INTERNAL'));
  });

  // INTERNAL is typed but means an error nobody mapped (a 300-character file name reaches the
  // fake adapter's filesystem as ENAMETOOLONG, with a host path): issue 10 item 6, mapped elsewhere.
  it('no fuzzed input ends in INTERNAL', () => {
    assert.deepEqual(internal, []);
  });
});
