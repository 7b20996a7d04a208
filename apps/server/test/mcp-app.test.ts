// The live view as an MCP App (issue 34.5) through the BUILT server over HTTP, two principals,
// on a real debian-x11 desktop: vm_lease_create and vm_screenshot name the View in tools/list;
// the View's HTML is a resource; a host built on ext-apps' own AppBridge (the reference host
// side) renders it in headless Chromium in a sandboxed iframe under a CSP that allows nothing
// from anywhere, hands it the tool call, and the View shows the machine's frames — a word the
// agent types arrives in the View's image (tesseract reads it) —, who drives it (a person's
// take-over through the dashboard's API shows as "human"), and its Take over button asks the
// host to open the lease's dashboard page. Another principal reads none of it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer, until, type HttpServer } from '@vmhub/test-kit';
import { imageShows } from './agent-tools-checks.ts';
import { BIN, connect, leaseReady, sandbox } from './harness.ts';

// Page functions run in Chromium: its globals, untyped here.
declare const document: any;
declare const window: any;

const CHROMIUM = process.env.VMHUB_CHROMIUM ?? '/usr/bin/chromium';
const APP_URI = 'ui://vmhub/lease-view.html';
const APP_MIME = 'text/html;profile=mcp-app';
const TOKENS = { alice: `tok-alice-app-${randomBytes(4).toString('hex')}`, bob: `tok-bob-app-${randomBytes(4).toString('hex')}` };
const WORD = `appseen${Array.from(randomBytes(4), (b) => String(2 + (b % 8))).join('')}`;
// Resource-not-found: -32602 naming the URI (the SDK v2, every revision).
const NOT_FOUND = -32602;
const run = promisify(execFile);

const dir = mkdtempSync(join(tmpdir(), 'vmhub-mcp-app-'));
const instance = `ma${randomBytes(3).toString('hex')}`;
let server: HttpServer | undefined;
let alice: Client;
let bob: Client;
let browser: Browser;
let page: Page;
let lease = '';
let created: any;
const problems: string[] = [];

/** A client over HTTP; `views`: it says it renders MCP Apps (as a host such as Claude or VS Code does). */
async function client(token: string, name: string, views = false): Promise<Client> {
  const c = new Client({ name, version: '1' }, views ? { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [APP_MIME] } } } } : {});
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server!.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

async function ok(tool: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await alice.callTool({ name: tool, arguments: { lease_id: lease, ...args } }) as any;
  assert.equal(r.isError, undefined, `${tool}: ${JSON.stringify(r.structuredContent)}`);
  return r;
}

/**
 * The host page: ext-apps' AppBridge (bundled here from the package, as a host would) connected
 * to the View's iframe by its PostMessageTransport; resources/read goes to Node (alice's MCP
 * client), ui/open-link is recorded. The iframe is sandboxed (scripts only: an opaque origin) and
 * its document carries the CSP the resource's _meta.ui.csp asks for — no domain at all.
 */
async function hostBundle(): Promise<string> {
  const out = await build({
    stdin: {
      contents: `
        import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
        window.startHost = async (html, input, result) => {
          window.openedLinks = [];
          const iframe = document.createElement('iframe');
          iframe.setAttribute('sandbox', 'allow-scripts');
          iframe.style.width = '1000px';
          iframe.style.height = '760px';
          document.body.append(iframe);
          const bridge = new AppBridge(null, { name: 'vmhub-test-host', version: '1' }, { openLinks: {}, serverResources: {} });
          bridge.onreadresource = (params) => window.hostRead(params);
          bridge.onopenlink = async (params) => { window.openedLinks.push(params.url); return {}; };
          bridge.oninitialized = () => { void bridge.sendToolInput({ arguments: input }).then(() => bridge.sendToolResult(result)); };
          await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
          iframe.srcdoc = html;
        };`,
      resolveDir: new URL('..', import.meta.url).pathname,
      loader: 'js',
    },
    bundle: true, format: 'iife', platform: 'browser', target: 'es2022', write: false, logLevel: 'warning',
  });
  return out.outputFiles[0]!.text;
}

/** The CSP a host derives from _meta.ui.csp with no domains: inline script and style, images as data. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'";

function view(): Frame {
  const f = page.frames().find((x) => x !== page.mainFrame());
  assert.ok(f, 'the View\'s iframe is there');
  return f;
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: install Debian's chromium (scripts/setup.sh) or set VMHUB_CHROMIUM`);
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ instance, db: join(dir, 'vmhub.db'), reaper: { autostart: false }, http: { tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] } }));
  server = await startHttpServer({ bin: BIN, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'warn', VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob, VMHUB_TOOLSETS: 'all' } });
  alice = await client(TOKENS.alice, 'alice', true);
  bob = await client(TOKENS.bob, 'bob');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
  page = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
  page.on('console', (m) => { if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
});

after(async () => {
  await browser?.close().catch(() => undefined);
  if (lease) await alice?.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
  await Promise.allSettled([alice?.close(), bob?.close()]);
  await server?.stop();
  await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
  rmSync(dir, { recursive: true, force: true });
});

describe('the live view as an MCP App: a host renders it inline and it shows the machine', () => {
  it('tools/list names the View on vm_lease_create and vm_screenshot only, to a host that renders Views; the View is a text/html;profile=mcp-app resource', async () => {
    const tools = (await alice.listTools()).tools;
    const naming = tools.filter((t: any) => t._meta?.ui?.resourceUri !== undefined).map((t) => t.name).sort();
    assert.deepEqual(naming, ['vm_lease_create', 'vm_screenshot']);
    const plain = (await bob.listTools()).tools;
    assert.deepEqual(plain.filter((t: any) => t._meta?.ui !== undefined).map((t) => t.name), [], 'a client without the extension gets the list unchanged (tools/list\'s bytes)');
    assert.deepEqual(tools.map(({ _meta, ...t }: any) => t), plain, 'the View adds its two _meta entries and nothing else');
    for (const t of tools.filter((x) => naming.includes(x.name))) assert.equal((t as any)._meta.ui.resourceUri, APP_URI);
    const listed = (await alice.listResources()).resources.find((r) => r.uri === APP_URI);
    assert.equal(listed?.mimeType, APP_MIME, 'listed with the MCP Apps type');
    const read = (await alice.readResource({ uri: APP_URI })).contents[0] as any;
    assert.equal(read.mimeType, APP_MIME);
    assert.deepEqual(read._meta?.ui?.csp, { connectDomains: [], resourceDomains: [] }, 'it asks for no domain');
    assert.match(read.text, /^<!doctype html>/);
    assert.doesNotMatch(read.text, /<script[^>]+src=|<link[^>]+href=|https?:\/\//, 'self-contained: nothing to load from anywhere');
    const templates = (await alice.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.ok(templates.includes('vmhub://leases/{lease_id}/live'), templates.join(' '));
  });

  it('alice leases debian-x11; she reads its state and screen as a resource, bob gets resource-not-found', async () => {
    created = await alice.callTool({ name: 'vm_lease_create', arguments: { template: 'debian-x11', ttl_seconds: 900 } }) as any;
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    lease = created.structuredContent.lease_id;
    for (let status = created.structuredContent.status, until = Date.now() + 120_000; status !== 'ready';) {
      assert.ok(['provisioning', 'starting'].includes(status) && Date.now() < until, `lease ${lease} is ${status}`);
      status = (await ok('vm_lease_status', { wait_seconds: 5 })).structuredContent.status;
    }
    const live = (await alice.readResource({ uri: `vmhub://leases/${lease}/live` })).contents as any[];
    const state = JSON.parse(live[0].text);
    assert.deepEqual([state.lease_id, state.status, state.control, state.dashboard], [lease, 'ready', 'agent', `${server!.base}/ui/leases/${lease}`]);
    assert.equal(live[1]?.mimeType, 'image/jpeg');
    assert.ok(Buffer.from(live[1].blob, 'base64').subarray(0, 2).equals(Buffer.from([0xff, 0xd8])), 'a JPEG');
    await assert.rejects(bob.readResource({ uri: `vmhub://leases/${lease}/live` }), (e: any) => e.code === NOT_FOUND, 'another principal\'s lease reads as an unknown one');
    await assert.rejects(alice.readResource({ uri: 'vmhub://leases/not-a-lease/live' }), (e: any) => e.code === NOT_FOUND);
  });

  it('a host on ext-apps\' AppBridge renders the View in a sandboxed iframe under its CSP; it shows the lease\'s frames and who drives it', async () => {
    await page.exposeFunction('hostRead', (params: { uri: string }) => alice.readResource(params));
    await page.setContent(`<!doctype html><html><body><script>${await hostBundle()}</script></body></html>`);
    const html = ((await alice.readResource({ uri: APP_URI })).contents[0] as any).text as string;
    const withCsp = html.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${CSP}">`);
    await page.evaluate(([h, input, result]) => (window as any).startHost(h, input, result), [withCsp, { template: 'debian-x11', ttl_seconds: 900 }, created] as const);
    await view().waitForSelector('body[data-connected="true"]', { timeout: 15_000 });
    await view().waitForFunction((id) => document.body.dataset.lease === id && Number(document.querySelector('#screen')?.getAttribute('data-frame')) >= 1, lease, { timeout: 20_000 });
    assert.equal(await view().locator('#status').innerText(), 'ready');
    assert.equal(await view().locator('#control').innerText(), 'agent');
    assert.ok(await view().evaluate(() => document.querySelector('#screen').naturalWidth > 0), 'the frame decodes');
    assert.equal(await view().evaluate(() => window.origin), 'null', 'the View runs at an opaque origin (sandboxed)');
    // Its polling is not the agent's doing: frames keep coming, and the lease's recording gains no step.
    const steps = async () => ((await (await fetch(`${server!.base}/api/leases/${lease}/recording`, { headers: { Authorization: `Bearer ${TOKENS.alice}` } })).json()) as any).steps.length;
    await ok('vm_screenshot');
    await until(async () => (await steps()) > 0 || undefined, 'the agent\'s vm_screenshot in the recording (recordings are on)', 10_000);
    const [frame, recorded] = [Number(await view().locator('#screen').getAttribute('data-frame')), await steps()];
    await view().waitForFunction((n) => Number(document.querySelector('#screen').getAttribute('data-frame')) >= n + 3, frame, { timeout: 15_000 });
    assert.equal(await steps(), recorded, 'three reads of the View later, the recording has the same steps');
  });

  it('the agent types a word in a terminal; a frame the View shows has it', async () => {
    const term = (await ok('vm_launch', { app: 'xterm', args: ['-T', 'vmhub-app', '-fa', 'DejaVu Sans Mono', '-fs', '32', '-geometry', '24x3+20+40', '-e', 'sh', '-c', 'cat > /dev/null'], wait_seconds: 10 })).structuredContent.window;
    await ok('vm_focus', { window: term.id });
    const before = await view().evaluate(() => document.querySelector('#screen').src);
    assert.equal((await imageShows(Buffer.from(before.slice(before.indexOf(',') + 1), 'base64'), WORD)).shows, false, 'not on the View before the agent types it');
    await ok('vm_type', { text: `  ${WORD}\n` }); // spaced from the window's edge, the cursor on the next line
    let read = '';
    await until(async () => {
      const src = await view().evaluate(() => document.querySelector('#screen').src);
      const seen = await imageShows(Buffer.from(src.slice(src.indexOf(',') + 1), 'base64'), WORD);
      read = seen.read;
      return seen.shows || undefined;
    }, `the View's frame to show ${WORD}`, 30_000, 500).catch((err) => { throw new Error(`${err.message}; tesseract last read: ${JSON.stringify(read.slice(0, 300))}`); });
  });

  it('a person takes over in the dashboard: the View says "human"; its Take over button asks the host to open the lease\'s page', async () => {
    const api = (action: string) => fetch(`${server!.base}/api/leases/${lease}/${action}`, { method: 'POST', headers: { Authorization: `Bearer ${TOKENS.alice}`, 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal((await api('takeover')).status, 200);
    await view().waitForFunction(() => document.querySelector('#control')?.textContent === 'human', undefined, { timeout: 10_000 });
    assert.equal((await api('handback')).status, 200);
    await view().waitForFunction(() => document.querySelector('#control')?.textContent === 'agent', undefined, { timeout: 10_000 });
    await view().locator('#takeover').click();
    await page.waitForFunction(() => (window as any).openedLinks.length > 0, undefined, { timeout: 5_000 });
    assert.deepEqual(await page.evaluate(() => (window as any).openedLinks), [`${server!.base}/ui/leases/${lease}`]);
  });

  it('released: the View says so and stops reading; nothing broke the CSP', async () => {
    await ok('vm_lease_release');
    await view().waitForFunction(() => !['ready', '…'].includes(document.querySelector('#status')?.textContent ?? ''), undefined, { timeout: 15_000 });
    const frame = await view().locator('#screen').getAttribute('data-frame');
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(await view().locator('#screen').getAttribute('data-frame'), frame, 'no frame after the release');
    lease = '';
    assert.deepEqual(problems, [], 'no CSP refusal and no script error in the host or the View');
  });
});

describe('the MCP App over stdio: no dashboard to open', () => {
  it('the live resource gives the state and a JPEG, and no dashboard page (the View\'s Take over says so)', async () => {
    const box = sandbox();
    const s = await connect(box);
    try {
      let id = '';
      await leaseReady(s, { template: 'fake-desktop' }, 30, (x) => { id = x; });
      const live = (await s.client.readResource({ uri: `vmhub://leases/${id}/live` })).contents as any[];
      const state = JSON.parse(live[0].text);
      assert.deepEqual([state.status, state.control, 'dashboard' in state], ['ready', 'agent', false]);
      assert.equal(live[1]?.mimeType, 'image/jpeg');
      await s.call('vm_lease_release', { lease_id: id });
    } finally {
      await s.close();
      box.cleanup();
    }
  });
});
