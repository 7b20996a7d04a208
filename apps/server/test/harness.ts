/**
 * Test harness: starts the BUILT vmhub-server binary (dist/bin.js) and drives it with the
 * official MCP SDK Client over stdio, exactly as an MCP client application would.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { compile, describeErrors, TOOLS, type ToolName } from '@vmhub/core';
import { startHttpServer, type HttpServer } from '@vmhub/test-kit';

export { until } from '@vmhub/test-kit';
export type { HttpServer } from '@vmhub/test-kit';

export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export interface Sandbox {
  dir: string;
  instance: string;
  db: string;
  fakeDir: string;
  configFile: string;
  cleanup(): void;
}

/** A temp dir with a config that loads the conformance fake plugins. */
export function sandbox(extra: Record<string, unknown> = {}, templates: unknown[] = defaultTemplates()): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-itest-'));
  const instance = `t${randomBytes(4).toString('hex')}`;
  const db = join(dir, 'vmhub.db');
  const fakeDir = join(dir, 'fake');
  const configFile = join(dir, 'config.json');
  // The server's own reaper start-up is tested in reaper-autostart.test.ts; elsewhere a detached
  // reaper would tear down what a test is still looking at. Every toolset: tests drive every tool;
  // the default sets are tools-list.test.ts's (`toolsets: undefined` there).
  writeFileSync(configFile, JSON.stringify({ instance, db, plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: fakeDir } }, templates, reaper: { autostart: false }, toolsets: ['all'], ...extra }, null, 2));
  return { dir, instance, db, fakeDir, configFile, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A sandbox for tests on real machines (Docker containers, QEMU VMs): a temp dir `vmhub-<name>-…`,
 * an instance `<tag>` + 6 hex digits, and no config file until `write(config)` writes one (the
 * instance, the db, the reaper's autostart off, then `config`: the providers' own templates).
 * `removeMachines()` removes what the instance left on this host (containers, QEMU processes: their
 * names start `vmhub-<instance>-`); `end(s, leases)` releases `leases` through `s`, closes it,
 * removes the machines and the dir (errors on the way are ignored: it is an after hook's).
 */
export interface MachineBox extends Sandbox {
  write(config?: Record<string, unknown>): void;
  removeMachines(): Promise<void>;
  end(s?: Session, leases?: string[]): Promise<void>;
}

export function machineBox(name: string, tag: string): MachineBox {
  const run = promisify(execFile);
  const dir = mkdtempSync(join(tmpdir(), `vmhub-${name}-`));
  const instance = `${tag}${randomBytes(3).toString('hex')}`;
  const db = join(dir, 'vmhub.db');
  const configFile = join(dir, 'config.json');
  const removeMachines = async () => {
    await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
    await run('pkill', ['-KILL', '-f', `vmhub-${instance}-`]).catch(() => undefined);
  };
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  return {
    dir, instance, db, configFile, fakeDir: '', cleanup, removeMachines,
    write: (config = {}) => writeFileSync(configFile, JSON.stringify({ instance, db, reaper: { autostart: false }, ...config })),
    end: async (s, leases = []) => {
      for (const id of leases.filter(Boolean)) await s?.call('vm_lease_release', { lease_id: id }).catch(() => undefined);
      await s?.close().catch(() => undefined);
      await removeMachines();
      cleanup();
    },
  };
}

export interface StdioSuite {
  box: Sandbox;
  s: Session;
}

export interface StdioSuiteOptions {
  config?: Record<string, unknown>;
  templates?: unknown[];
  env?: Record<string, string>;
  /** What the tests need besides, done in the same before hook once the session is open. */
  setup?: (suite: StdioSuite) => Promise<void>;
}

/**
 * For the tests of the enclosing describe (or file): `sandbox(config, templates)` and a Session
 * on it (`connect(box, env)`), opened before them, then `setup`; closed, and the sandbox removed,
 * after them.
 */
export function stdioSuite({ config = {}, templates, env = {}, setup }: StdioSuiteOptions = {}): StdioSuite {
  const suite = { box: undefined, s: undefined } as unknown as StdioSuite;
  before(async () => {
    suite.box = sandbox(config, templates);
    suite.s = await connect(suite.box, env);
    await setup?.(suite);
  });
  after(async () => {
    await suite.s?.close();
    suite.box?.cleanup();
  });
  return suite;
}

export function defaultTemplates(): unknown[] {
  return [
    { id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 300 } },
    { id: 'fake-stub', provider: 'fake', adapter: 'stub', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 50 } },
    { id: 'fake-broken', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { fail_at: 'ready' } },
    { id: 'fake-slow', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', ready_timeout_seconds: 1, provider_options: { ready_delay_ms: 4000 } },
  ];
}

export interface Session {
  client: Client;
  /** The server process's pid (kill tests). */
  pid: number | null;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { structuredContent?: any }>;
  stderr(): string;
  close(): Promise<void>;
}

export async function connect(box: Sandbox, env: Record<string, string> = {}, name = 'itest'): Promise<Session> {
  return connectOver(new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    // Every toolset unless the test says otherwise (tools-list.test.ts checks the default's).
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn', VMHUB_TOOLSETS: 'all', ...env },
    stderr: 'pipe',
  }), name);
}

/**
 * The built server over HTTP with the sandbox's config: `--http` and `args` (default `--port 0`,
 * 127.0.0.1), resolved with its URL once it listens. `env` goes over the defaults PATH, HOME,
 * VMHUB_CONFIG (the sandbox's) and VMHUB_LOG_LEVEL=warn: the tokens, another level or config.
 */
export function startHttp(box: Sandbox, env: Record<string, string> = {}, args?: string[]): Promise<HttpServer> {
  return startHttpServer({ bin: BIN, args, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn', ...env } });
}

/** A Session over a server this transport starts (any vmhub-server binary: the built one, an installed one). */
export async function connectOver(transport: StdioClientTransport, name = 'itest'): Promise<Session> {
  let err = '';
  transport.stderr?.on('data', (d) => { err += d; });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    call: async (tool, args = {}) => {
      const result = await client.callTool({ name: tool, arguments: args }) as CallToolResult & { structuredContent?: any };
      // Every successful result must match the tool's full output schema (the wire copy omits
      // `required`), so a handler that drops a declared field fails the test that called it.
      const schema = TOOLS[tool as ToolName]?.output;
      if (schema && !result.isError) {
        const check = compile(schema);
        if (!check(result.structuredContent)) throw new Error(`${tool} output does not match its schema: ${describeErrors(check.errors ?? [])}`);
      }
      return result;
    },
    stderr: () => err,
    close: () => client.close(),
  };
}

/** Poll vm_lease_status until the lease leaves provisioning/starting. */
/** A caller on `s` whose error result fails the test, naming the tool and what it answered. */
export function okCaller(s: Pick<Session, 'call'>): (name: string, args?: Record<string, unknown>) => Promise<CallToolResult & { structuredContent?: any }> {
  return async (name, args = {}) => {
    const r = await s.call(name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.structuredContent)}`);
    return r;
  };
}

export async function waitReady(s: Pick<Session, 'call'>, leaseId: string, seconds = 30): Promise<any> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const r = await s.call('vm_lease_status', { lease_id: leaseId, wait_seconds: 5 });
    if (r.isError) throw new Error(`vm_lease_status failed: ${JSON.stringify(r.structuredContent)}`);
    if (!['provisioning', 'starting'].includes(r.structuredContent.status)) return r.structuredContent;
    if (Date.now() > until) throw new Error(`lease ${leaseId} not ready after ${seconds}s: ${JSON.stringify(r.structuredContent)}`);
  }
}

/**
 * vm_lease_create with `args`, then vm_lease_status until the lease is ready (both asserted); its
 * status is returned. `created(id)` hears of the lease before the wait, so that an after hook
 * releases it even if it never becomes ready.
 */
export async function leaseReady(s: Session, args: Record<string, unknown>, seconds = 30, created: (id: string) => void = () => {}): Promise<any> {
  const r = await s.call('vm_lease_create', args);
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  created(r.structuredContent.lease_id);
  const ready = await waitReady(s, r.structuredContent.lease_id, seconds);
  assert.equal(ready.status, 'ready', JSON.stringify(ready));
  return ready;
}

/** A file's text in the guest once `want` accepts it (polled with vm_get_file); the last text read after `ms`. */
export async function guestText(s: Session, lease: string, path: string, want: (t: string) => boolean, ms = 8000): Promise<string> {
  const until = Date.now() + ms;
  let last = '';
  while (Date.now() < until) {
    const r = await s.call('vm_get_file', { lease_id: lease, path });
    if (!r.isError) { last = r.structuredContent.content ?? ''; if (want(last)) return last; }
    await new Promise((r) => setTimeout(r, 200));
  }
  return last;
}

/** The built binary's `args` (a subcommand: doctor, leases…) on the box's config, killed after `ms`: its exit code and output. */
export function runBin(box: Sandbox, args: string[], env: Record<string, string> = {}, ms = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

export function errorCode(r: CallToolResult & { structuredContent?: any }): string | undefined {
  return r.isError ? r.structuredContent?.code : undefined;
}

/** A live-view browser sign-in as the sign-in page makes it: a same-origin form POST to /ui/login. */
export interface UiSignIn {
  status: number;
  /** The Set-Cookie values of the answer. */
  setCookies: string[];
  /** The `vmhub_session` id set, if any. */
  session: string | undefined;
  /** `Cookie` header value carrying that id. */
  cookie: string;
  location: string | null;
  text: string;
}

/** `headers` override the page's own (an undefined value leaves that header out). */
export async function uiSignIn(base: string, token: string, headers: Record<string, string | undefined> = {}, next = '/ui/'): Promise<UiSignIn> {
  const all = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: base, 'Sec-Fetch-Site': 'same-origin', ...headers };
  const res = await fetch(`${base}/ui/login`, {
    method: 'POST', redirect: 'manual',
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: new URLSearchParams({ token, next }).toString(),
  });
  const setCookies = res.headers.getSetCookie();
  const session = setCookies.map((c) => /^vmhub_session=([^;]+);/.exec(c)?.[1]).find((v) => v !== undefined);
  return { status: res.status, setCookies, session, cookie: `vmhub_session=${session ?? ''}`, location: res.headers.get('location'), text: await res.text() };
}
