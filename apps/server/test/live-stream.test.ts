// The live view's stream (GET /api/leases/{id}/stream) through the BUILT server over real HTTP,
// on the fake desktop: Debian's headless Chromium opens the lease page (signed in by cookie) and a
// second viewer connects with the `ws` client and a bearer token. An agent's vm_launch opens a
// window: both viewers get the same changed rectangle (seq and box), the page paints it, and the
// page's canvas matches the agent's own screenshot pixel for pixel (within JPEG's error). One
// capture loop serves both; a viewer that leaves releases its place, and with the last one the
// capture stops. Refusals: another principal's lease (404), no credential (401), the cookie from
// another origin (403).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { until } from '@vmhub/test-kit';
import { sandbox, startHttp, uiSignIn, type HttpServer, type Sandbox } from './harness.ts';

// Page functions run in Chromium; this file is typed for Node.
declare const document: any;
declare const window: any;

const CHROMIUM = process.env.VMHUB_CHROMIUM ?? '/usr/bin/chromium';
const TOKEN = 'stream-token-4f1a9c';
const OTHER = 'stream-other-7e3b20';
const HEADER = 24;

let box: Sandbox;
let server: HttpServer;
let agent: Client;
let browser: Browser;
let page: Page;
let lease = '';

const bearer = (token = TOKEN) => ({ Authorization: `Bearer ${token}` });
const call = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await agent.callTool({ name, arguments: { lease_id: lease, ...args } }) as any;
  assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.structuredContent)}`);
  return r;
};
const streamStats = async () => ((await (await fetch(`${server.base}/api/leases/${lease}`, { headers: bearer() })).json()) as any).stream as { viewers: number; capturing: boolean; frames_sent: number };
const streamUrl = (width = 1280) => `${server.base.replace(/^http/, 'ws')}/api/leases/${lease}/stream?max_width=${width}`;

interface Rect { seq: number; x: number; y: number; width: number; height: number; whole: boolean; jpeg: Buffer }
const parse = (b: Buffer): Rect => ({ whole: (b[1]! & 1) === 1, seq: b.readUInt32LE(4), x: b.readUInt16LE(16), y: b.readUInt16LE(18), width: b.readUInt16LE(20), height: b.readUInt16LE(22), jpeg: b.subarray(HEADER) });

/** A `ws` viewer; `rects` fills as binary messages come. */
function viewer(headers: Record<string, string>, width?: number): Promise<{ ws: WebSocket; rects: Rect[]; texts: any[] }> {
  const ws = new WebSocket(streamUrl(width), { headers });
  const rects: Rect[] = [];
  const texts: any[] = [];
  ws.on('message', (data, binary) => { if (binary) rects.push(parse(data as Buffer)); else texts.push(JSON.parse(data.toString())); });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, rects, texts }));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

before(async () => {
  box = sandbox({ http: { tokens: [{ principal: 'other', token_env: 'VMHUB_TOKEN_OTHER' }] } });
  server = await startHttp(box, { VMHUB_HTTP_TOKEN: TOKEN, VMHUB_TOKEN_OTHER: OTHER });
  agent = new Client({ name: 'stream-agent', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: bearer() } }));
  lease = ((await agent.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-desktop' } })).structuredContent as any).lease_id;
  await until(async () => ((await agent.callTool({ name: 'vm_lease_status', arguments: { lease_id: lease, wait_seconds: 2 } })).structuredContent as any).status === 'ready', 'the lease is ready', 20_000);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
  const context = await browser.newContext({ viewport: { width: 1700, height: 1100 } });
  const signIn = await uiSignIn(server.base, TOKEN);
  await context.addCookies([{ name: 'vmhub_session', value: signIn.session!, url: server.base, httpOnly: true, sameSite: 'Strict' }]);
  page = await context.newPage();
});
after(async () => { await browser?.close(); await agent?.close(); await server?.stop(); box?.cleanup(); });

describe('live view stream: one capture, changed rectangles to every viewer, painted in Chromium', () => {
  let second: { ws: WebSocket; rects: Rect[] };

  it('the page opens the stream and paints the whole screen; a second viewer (bearer) joins the same capture', async () => {
    await page.goto(`${server.base}/ui/leases/${lease}`);
    await page.waitForFunction(() => document.querySelector('#screen')?.getAttribute('data-stream') === 'open' && Number(document.querySelector('#screen')?.getAttribute('data-frame')) >= 1, undefined, { timeout: 15_000 });
    await page.evaluate(() => { (window as any).__rects = []; document.querySelector('#screen').addEventListener('vmhub-frame', (e: any) => window.__rects.push(e.detail)); });
    second = await viewer(bearer());
    await until(async () => (second.rects.length > 0 ? true : undefined), 'the second viewer\'s first frame', 10_000);
    assert.equal(second.rects[0]!.whole, true, 'a viewer starts with the whole screen');
    assert.deepEqual([second.rects[0]!.x, second.rects[0]!.y, second.rects[0]!.width, second.rects[0]!.height], [0, 0, 1024, 768]);
    const stats = await streamStats();
    assert.deepEqual([stats.viewers, stats.capturing], [2, true], JSON.stringify(stats));
  });

  it('an agent\'s action: both viewers get the same changed rectangle, and the page shows the agent\'s screenshot', async () => {
    const from = second.rects.length;
    await call('vm_launch', { app: 'fake-notes' });
    await until(async () => (second.rects.length > from ? true : undefined), 'a changed rectangle after vm_launch', 10_000);
    const rect = second.rects[from]!;
    assert.equal(rect.whole, false);
    assert.ok(rect.width < 1024 || rect.height < 768, `only what changed: ${rect.width}x${rect.height}+${rect.x}+${rect.y}`);
    const pageRects = await page.waitForFunction((seq) => (window as any).__rects.find((r: any) => r.seq === seq), rect.seq, { timeout: 10_000 }).then((h) => h.jsonValue()) as any;
    assert.deepEqual([pageRects.x, pageRects.y, pageRects.width, pageRects.height], [rect.x, rect.y, rect.width, rect.height], 'the same rectangle, the same seq, on both');

    // The canvas against the agent's own screenshot of the same screen (PNG, lossless).
    const shot = (await call('vm_screenshot', { format: 'png' })).content.find((c: any) => c.type === 'image');
    const want = await sharp(Buffer.from(shot.data, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    // The canvas's own pixels, as a lossless PNG of it.
    const url = await page.evaluate(() => document.querySelector('#screen').toDataURL('image/png') as string);
    const got = await sharp(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([got.info.width, got.info.height], [want.info.width, want.info.height]);
    let diff = 0;
    for (let j = 0; j < want.data.length; j++) diff += Math.abs(got.data[j]! - want.data[j]!);
    const mean = diff / want.data.length;
    assert.ok(mean < 2, `the painted canvas matches the screenshot: mean difference ${mean.toFixed(3)} per channel`);
  });

  it('frames keep coming past the 30 s the upgrade\'s bind was given (each capture has its own deadline)', async () => {
    await new Promise((r) => setTimeout(r, 31_000));
    const from = second.rects.length;
    await call('vm_launch', { app: 'fake-late' });
    await until(async () => (second.rects.length > from ? true : undefined), 'a changed rectangle 31 s after the stream opened', 10_000);
  });

  it('a still screen sends nothing; a viewer that leaves releases its place, and the last one stops the capture', async () => {
    const before = second.rects.length;
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(second.rects.length, before, 'nothing sent while the screen is still');
    second.ws.close();
    await until(async () => ((await streamStats()).viewers === 1 ? true : undefined), 'one viewer left', 5_000);
    await page.close();
    await until(async () => { const s = await streamStats(); return s.viewers === 0 && !s.capturing ? true : undefined; }, 'no viewer and no capture', 5_000);
  });

  it('refused: another principal\'s lease is 404, no credential 401, the sign-in cookie from another origin 403', async () => {
    await assert.rejects(viewer(bearer(OTHER)), (e: any) => e.status === 404);
    await assert.rejects(viewer({}), (e: any) => e.status === 401);
    const signIn = await uiSignIn(server.base, TOKEN);
    await assert.rejects(viewer({ Cookie: signIn.cookie, Origin: 'http://127.0.0.1:1' }), (e: any) => e.status === 403);
    await assert.rejects(viewer({ Cookie: signIn.cookie }), (e: any) => e.status === 403, 'by cookie, an Origin is required');
    await assert.rejects(viewer(bearer(), 5), (e: any) => e.status === 400, 'max_width out of range');
    // Messages the socket cannot take are answered typed, and change nothing.
    const ok = await viewer({ Cookie: signIn.cookie, Origin: server.base });
    ok.ws.send(JSON.stringify({ type: 'width', max_width: 99999 }));
    ok.ws.send(JSON.stringify({ type: 'input', id: 7, input: { type: 'click', x: 1, y: 1 } }));
    await until(async () => (ok.texts.length >= 2 ? true : undefined), 'two answers', 5_000);
    assert.deepEqual(ok.texts[0], { type: 'error', code: 'INVALID_REQUEST', message: 'max_width must be an integer 16..4096' });
    assert.deepEqual([ok.texts[1].type, ok.texts[1].id, ok.texts[1].error?.code], ['input', 7, 'NOT_IN_CONTROL'], 'input needs a take-over first, as POST …/input');
    ok.ws.close();
  });
});
