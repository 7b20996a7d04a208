// Issue 17 end to end, in a real browser: the BUILT server (dist/bin.js --http, bearer token), an
// agent as an MCP client over Streamable HTTP, a lease of the real x11 desktop (debian-x11 on
// Docker), and Debian's headless Chromium through playwright-core (no browser download) as the
// person. What the page shows is read off the page itself (tesseract on the element screenshot
// of #screen); what the person types is checked in the guest (a file the terminal writes, read
// with vm_exec); the agent's view of take-over and hand-back is the MCP results it gets.
// Screenshots of the pages and the downloaded recording are kept in a directory the test prints
// (VMHUB_TEST_ARTIFACTS, or a temp dir).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { compile, describeErrors, TOOLS, type ToolName } from '@vmhub/core';
import { startHttpServer, until, type HttpServer } from '@vmhub/test-kit';
import { imageShows } from './agent-tools-checks.ts';
import { BIN } from './harness.ts';

// Functions passed to page.evaluate/waitForFunction run in the page; this tsconfig has no DOM lib.
declare const document: any;
declare const navigator: any;
declare const window: any;

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CHROMIUM = process.env.VMHUB_CHROMIUM ?? '/usr/bin/chromium';
const TOKEN = `live-${randomBytes(12).toString('hex')}`;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// Digits 2–9 and letters OCR does not confuse (no l/i/o/0/1), so a miss is a real miss.
const digits = () => Array.from(randomBytes(4), (b) => String(2 + (b % 8))).join('');
const AGENT_WORD = `vmhubseen${digits()}`;
const PERSON_TEXT = `Typed by a person ${digits()}`;
const NOTE = `I accepted the dialog for you ${digits()}`;
const PASTED = `pasted by a person ${digits()}`;
const PASTED_KEYS = `pasted with ctrl v ${digits()}`;
const COPY_OUT = `on the machine clipboard ${digits()}`;
const EXEC_OUT = `exec said ${digits()}`;
const SECRET = `s3cr3t${randomBytes(6).toString('hex')}`;
const LINES = '/tmp/live-view-lines.txt';

type Result = CallToolResult & { structuredContent?: any };

const dir = mkdtempSync(join(tmpdir(), 'vmhub-live-view-'));
const artifacts = process.env.VMHUB_TEST_ARTIFACTS ?? mkdtempSync(join(tmpdir(), 'vmhub-live-view-artifacts-'));
const instance = `lv${randomBytes(3).toString('hex')}`;
let server: HttpServer | undefined;
let base = '';
let agent: Client;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let lease = '';
let released = false;
let screen = { width: 0, height: 0 };
let reader: any; // the xterm whose shell appends each line it reads to LINES
let other: any; // a second window the person's click moves the focus to
let dialogs: { answer: 'accept' | 'dismiss'; seen: string[] } = { answer: 'accept', seen: [] };

async function startServer(): Promise<string> {
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ instance, db: join(dir, 'vmhub.db'), reaper: { autostart: false } }));
  server = await startHttpServer({ bin: BIN, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'warn', VMHUB_HTTP_TOKEN: TOKEN, VMHUB_TOOLSETS: 'all' } });
  return server.base;
}

/** An agent tool call; a successful result must match the tool's full output schema. */
async function call(tool: string, args: Record<string, unknown> = {}): Promise<Result> {
  const r = await agent.callTool({ name: tool, arguments: args }) as Result;
  const schema = TOOLS[tool as ToolName]?.output;
  if (schema && !r.isError) {
    const check = compile(schema);
    if (!check(r.structuredContent)) throw new Error(`${tool} output does not match its schema: ${describeErrors(check.errors ?? [])}`);
  }
  return r;
}

async function ok(tool: string, args: Record<string, unknown> = {}): Promise<Result> {
  const r = await call(tool, { lease_id: lease, ...args });
  assert.equal(r.isError, undefined, `${tool}: ${JSON.stringify(r.structuredContent)}`);
  return r;
}

/** The JSON API as a script uses it: the bearer, no cookie, no Origin. */
async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${base}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers } });
}

async function windows(): Promise<any[]> {
  return (await ok('vm_list_windows')).structuredContent.windows;
}

async function focusedId(): Promise<string | undefined> {
  return (await windows()).find((w) => w.focused)?.id;
}

/** What the guest's line reader has written so far (exec works under take-over: the person allows commands and files). */
async function guestLines(): Promise<string> {
  return (await ok('vm_exec', { shell: `cat ${LINES} 2>/dev/null || true` })).structuredContent.stdout;
}

/** What tesseract reads on a PNG (2× up, grey, sparse text). */
async function ocr(png: Buffer): Promise<string> {
  const meta = await sharp(png).metadata();
  const prepared = await sharp(png).resize({ width: meta.width! * 2 }).grayscale().png().toBuffer();
  return new Promise((resolve, reject) => {
    const child = execFile('tesseract', ['stdin', 'stdout', '--psm', '11'], { maxBuffer: 16 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(out)));
    child.stdin!.end(prepared);
  });
}

/** What tesseract reads on the page's #screen as Chromium renders it. */
async function pageScreenText(name?: string): Promise<string> {
  const shot = await page.locator('#screen').screenshot();
  if (name) writeFileSync(join(artifacts, name), shot);
  return ocr(shot);
}

/** The page's canvas (its own pixels, not as scaled on the page) against a PNG of the screen: mean |difference| per channel. */
async function canvasDifference(png: Buffer): Promise<number> {
  const url = await page.evaluate(() => document.querySelector('#screen').toDataURL('image/png') as string);
  const got = await sharp(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const want = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (got.info.width !== want.info.width || got.info.height !== want.info.height) return Infinity;
  let diff = 0;
  for (let i = 0; i < want.data.length; i++) diff += Math.abs(got.data[i]! - want.data[i]!);
  return diff / want.data.length;
}

/** A page click at SCREEN pixel (x, y): the image's box scaled from the screen's size. */
async function clickScreenAt(x: number, y: number): Promise<void> {
  const box = (await page.locator('#screen').boundingBox())!;
  await page.mouse.click(box.x + (x + 0.5) * box.width / screen.width, box.y + (y + 0.5) * box.height / screen.height);
}

const centre = (w: any) => ({ x: Math.round(w.x + w.width / 2), y: Math.round(w.y + w.height / 2) });

async function recording(): Promise<{ lease: any; steps: any[] }> {
  const r = await api(`/api/leases/${lease}/recording`);
  assert.equal(r.status, 200, await r.clone().text());
  return r.json() as Promise<{ lease: any; steps: any[] }>;
}

async function decodesAsPng(dataUrl: string): Promise<boolean> {
  const m = /^data:image\/png;base64,(.+)$/s.exec(dataUrl);
  if (!m) return false;
  const bytes = Buffer.from(m[1]!, 'base64');
  if (!bytes.subarray(0, 8).equals(PNG_MAGIC)) return false;
  const meta = await sharp(bytes).metadata();
  return meta.format === 'png' && (meta.width ?? 0) > 0;
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: install Debian's chromium (scripts/setup.sh) or set VMHUB_CHROMIUM`);
  base = await startServer();
  agent = new Client({ name: 'live-view-agent', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
  context = await browser.newContext({ viewport: { width: 1600, height: 1100 }, acceptDownloads: true });
  page = await context.newPage();
  // Release asks "are you sure?": the test answers as dialogs.answer says.
  page.on('dialog', (d) => { dialogs.seen.push(d.message()); void (dialogs.answer === 'accept' ? d.accept() : d.dismiss()); });
});

after(async () => {
  await browser?.close().catch(() => undefined);
  if (lease && !released) await call('vm_lease_release', { lease_id: lease }).catch(() => undefined);
  await agent?.close().catch(() => undefined);
  await server?.stop();
  await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${instance}-) 2>/dev/null || true`]);
  rmSync(dir, { recursive: true, force: true });
});

describe('live view in headless Chromium: a person watches, takes over and hands back a real x11 desktop', () => {
  it('the agent leases debian-x11 over HTTP and opens a terminal that records each line it reads', async (t) => {
    t.diagnostic(`artifacts (page screenshots, the downloaded recording): ${artifacts}`);
    const created = await call('vm_lease_create', { template: 'debian-x11', ttl_seconds: 900 });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    lease = created.structuredContent.lease_id;
    let status = created.structuredContent.status;
    for (const until = Date.now() + 120_000; ['provisioning', 'starting'].includes(status);) {
      assert.ok(Date.now() < until, `lease ${lease} not ready after 120 s`);
      status = (await ok('vm_lease_status', { wait_seconds: 5 })).structuredContent.status;
    }
    assert.equal(status, 'ready');
    screen = (await ok('vm_screenshot')).structuredContent.screen;
    assert.ok(screen.width > 0 && screen.height > 0);

    other = (await ok('vm_launch', { app: 'xterm', args: ['-T', 'vmhub-other', '-geometry', '30x6+760+520', '-e', 'sh', '-c', 'sleep 900'], wait_seconds: 10 })).structuredContent.window;
    // A big monospace font, so the word stays readable on the page's scaled-down frame.
    reader = (await ok('vm_launch', { app: 'xterm', args: ['-T', 'vmhub-reader', '-fa', 'DejaVu Sans Mono', '-fs', '18', '-geometry', '40x8+20+40', '-e', 'sh', '-c', `while IFS= read -r l; do printf '%s\\n' "$l" >> ${LINES}; done`], wait_seconds: 10 })).structuredContent.window;
    assert.ok(reader && other, 'vm_launch reports both windows');
    await ok('vm_focus', { window: reader.id });
    await sleep(300);
    assert.equal(await focusedId(), reader.id);
    // What the person copies out of the machine later.
    await ok('vm_dispatch', { verb: 'set_clipboard', args: JSON.stringify({ text: COPY_OUT }) });
  });

  it('signs in by opening /ui/?token=… once (the page POSTs it) into an HttpOnly sign-in id; the list shows the lease', async () => {
    await page.goto(`${base}/ui/?token=${TOKEN}`);
    await page.waitForURL(`${base}/ui/`);
    await page.locator('#principal').waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(page.url(), `${base}/ui/`, 'the token left the address bar');
    const cookie = (await context.cookies(base)).find((c) => c.name === 'vmhub_session');
    assert.ok(cookie, 'the sign-in set the vmhub_session cookie');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.ok(!cookie.value.includes(TOKEN), 'the cookie holds a random id, not the token');
    assert.ok(!(await page.evaluate(() => document.cookie)).includes('vmhub_session'), 'page scripts cannot read the sign-in id');

    const row = page.locator(`#leases tr[data-lease-id="${lease}"]`);
    await row.waitFor({ timeout: 15_000 });
    const text = await row.innerText();
    assert.match(text, /debian-x11/, 'the row names the template');
    assert.match(text, /ready/, 'the row shows the status');
    assert.match(text, /agent/, 'the row shows who has control');
    // the live thumbnail has loaded a frame
    await page.waitForFunction((id) => [...document.querySelectorAll(`#leases tr[data-lease-id="${id}"] img`)].some((i: any) => (i as any).naturalWidth > 0), lease, { timeout: 15_000 });
    await page.screenshot({ path: join(artifacts, 'list.png'), fullPage: true });
  });

  it('the lease page streams frames, and a frame after the agent types shows the word', async () => {
    const row = page.locator(`#leases tr[data-lease-id="${lease}"]`);
    const link = row.locator(`a[href="/ui/leases/${lease}"]`);
    assert.ok((await link.count()) > 0, 'the row links to the lease page');
    await link.first().click();
    await page.waitForURL(`${base}/ui/leases/${lease}`);
    await page.locator('#screen').waitFor();
    // The page opens the lease's stream and paints its first (whole) frame.
    await page.waitForFunction(() => document.querySelector('#screen')?.getAttribute('data-stream') === 'open' && Number(document.querySelector('#screen')?.getAttribute('data-frame')) >= 1, undefined, { timeout: 15_000 });
    // The desktop is idle: the stream sends nothing (one viewer, one capture loop).
    const before = (await (await api(`/api/leases/${lease}`)).json() as any).stream;
    assert.deepEqual([before.viewers, before.capturing], [1, true], JSON.stringify(before));
    await new Promise((r) => setTimeout(r, 1000));
    const idle = (await (await api(`/api/leases/${lease}`)).json() as any).stream;
    assert.ok(idle.frames_sent <= before.frames_sent + 1, `an idle screen sent ${idle.frames_sent - before.frames_sent} frames in 1 s`);
    assert.equal((await page.locator('#control').innerText()).trim(), 'agent');
    assert.doesNotMatch((await pageScreenText()).replace(/\s+/g, '').toLowerCase(), new RegExp(AGENT_WORD), 'the word is not on the page before the agent types it');

    await ok('vm_type', { text: `${AGENT_WORD}\n` });
    // The page shows the frame the agent sees, and that frame holds the word: the canvas's own
    // pixels against the agent's PNG (within JPEG's error), the word read by tesseract on the
    // PNG at the screen's pixels (the page scales the canvas to its column; OCR of that blur
    // misread a letter now and then), matched as vm_find_text matches (CI once read
    // "vmhubseen8s997" for "vmhubseen8997" on a frame equal to the agent's).
    let read = '';
    let diff = Infinity;
    await until(async () => {
      const image = (await ok('vm_screenshot', { format: 'png' })).content.find((c: any) => c.type === 'image') as { data: string };
      const png = Buffer.from(image.data, 'base64');
      const seen = await imageShows(png, AGENT_WORD);
      read = seen.read;
      diff = await canvasDifference(png);
      return diff < 3 && seen.shows ? true : undefined;
    }, `the page's #screen to show "${AGENT_WORD}"`, 30_000, 500).catch((err) => { throw new Error(`${err.message}; canvas vs the agent's screenshot: ${diff.toFixed(3)} per channel; tesseract last read: ${JSON.stringify(read.slice(0, 400))}`); });
    await pageScreenText('lease-after-agent-typed-screen.png');
    assert.equal(await guestLines(), `${AGENT_WORD}\n`, 'the guest got the agent\'s line');
    assert.ok((await page.locator('#events li').count()) > 0, 'the lease page lists its events');
    await page.screenshot({ path: join(artifacts, 'lease.png'), fullPage: true });
  });

  it('the agent\'s last click is marked on the screen, the machine\'s pointer drawn, events read as sentences', async () => {
    const o = centre(other);
    await ok('vm_click', { x: o.x, y: o.y, coordinate_space: 'screen' });
    const mark = page.locator('#agent-click');
    await page.waitForFunction((p) => {
      const m = document.querySelector('#agent-click');
      return m && !m.hidden && m.getAttribute('data-x') === String(p.x) && m.getAttribute('data-y') === String(p.y);
    }, o, { timeout: 15_000 });
    // Drawn where that screen pixel is on the displayed image.
    const img = (await page.locator('#screen').boundingBox())!;
    const ring = (await mark.boundingBox())!;
    const want = { x: img.x + (o.x + 0.5) * img.width / screen.width, y: img.y + (o.y + 0.5) * img.height / screen.height };
    assert.ok(Math.abs(ring.x + ring.width / 2 - want.x) < 3 && Math.abs(ring.y + ring.height / 2 - want.y) < 3, `ring at ${JSON.stringify(ring)}, the click at ${JSON.stringify(want)}`);
    assert.match(await page.locator('#agent-click-label').innerText(), /^agent clicked /);
    // x11 tells its pointer (xdotool): after the click it is there.
    await page.waitForFunction((p) => {
      const m = document.querySelector('#pointer');
      return m && !m.hidden && m.getAttribute('data-source') === 'machine' && m.getAttribute('data-x') === String(p.x) && m.getAttribute('data-y') === String(p.y);
    }, o, { timeout: 15_000 });
    await ok('vm_focus', { window: reader.id });

    const events = await page.locator('#events li').allInnerTexts();
    assert.ok(events.some((e) => /Lease created from template debian-x11/.test(e)), JSON.stringify(events));
    assert.ok(events.some((e) => /The machine is ready\./.test(e)), JSON.stringify(events));
    for (const e of events) assert.doesNotMatch(e, /[{}]|"\w+":/, `an event line, not JSON: ${e}`);
    assert.ok(events.every((e) => /\d{1,2}:\d{2}/.test(e)), 'each line has its time');
    await page.screenshot({ path: join(artifacts, 'lease-agent-click.png'), fullPage: true });
  });

  it('1:1 shows the screen\'s own pixels (scrolling), fit brings it back; fullscreen fills the display at the screen\'s aspect', async () => {
    const fitWidth = (await page.locator('#screen').boundingBox())!.width;
    await page.locator('#actual-size').click();
    await page.waitForFunction((w) => {
      // The canvas holds the frame at its own pixels: 1:1 asks for the screen's width.
      const canvas = document.querySelector('#screen');
      return canvas.offsetWidth === w && canvas.width === w;
    }, screen.width, { timeout: 15_000 });
    const box = await page.evaluate(() => { const b = document.querySelector('#screen-box'); return { client: b.clientWidth, scroll: b.scrollWidth }; });
    if (screen.width > box.client) assert.ok(box.scroll > box.client, `scrolls: ${JSON.stringify(box)}`);
    assert.equal(await page.locator('#actual-size').getAttribute('aria-pressed'), 'true');
    await page.screenshot({ path: join(artifacts, 'lease-actual-size.png'), fullPage: true });
    await page.locator('#actual-size').click();
    await page.waitForFunction((w) => Math.abs(document.querySelector('#screen').offsetWidth - w) < 2, fitWidth, { timeout: 5_000 });

    await page.locator('#fullscreen').click();
    await page.waitForFunction(() => document.fullscreenElement?.id === 'screen-box', undefined, { timeout: 5_000 });
    const full = await page.evaluate(() => {
      const img = document.querySelector('#screen');
      return { w: img.offsetWidth, h: img.offsetHeight, vw: window.innerWidth, vh: window.innerHeight };
    });
    assert.ok(full.w <= full.vw && full.h <= full.vh + 1 && (full.w >= full.vw - 2 || full.h >= full.vh - 2), `fills the display: ${JSON.stringify(full)}`);
    assert.ok(Math.abs(full.w / full.h - screen.width / screen.height) < 0.02, `the screen's aspect: ${JSON.stringify(full)}`);
    await page.screenshot({ path: join(artifacts, 'lease-fullscreen.png') });
    await page.evaluate(() => document.exitFullscreen());
    await page.waitForFunction(() => !document.fullscreenElement && document.querySelector('#fullscreen').textContent === 'Fullscreen', undefined, { timeout: 5_000 });
  });

  it('take over: the agent\'s input answers HUMAN_CONTROL (retryable), vm_screenshot still works', async () => {
    // The person lets the agent's commands run meanwhile (the test reads the guest with vm_exec).
    await page.locator('#allow-commands').check();
    await page.locator('#takeover').click();
    await page.waitForFunction(() => document.querySelector('#control')?.textContent?.trim() === 'human', undefined, { timeout: 10_000 });
    const view = await (await api(`/api/leases/${lease}`)).json() as any;
    assert.equal(view.control, 'human');
    assert.ok(view.control_since, 'the API says since when');
    assert.equal(view.allow_commands_and_files, true, 'the page sent the box\'s choice');

    const c = centre(reader);
    const refused = await call('vm_click', { lease_id: lease, x: c.x, y: c.y, coordinate_space: 'screen' });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.code, 'HUMAN_CONTROL');
    assert.equal(refused.structuredContent.retryable, true);
    assert.match(refused.structuredContent.hint, /vm_screenshot/);
    const typed = await call('vm_type', { lease_id: lease, text: 'must not arrive\n' });
    assert.equal(typed.structuredContent?.code, 'HUMAN_CONTROL');
    const shot = await ok('vm_screenshot');
    assert.ok(shot.content.some((x: any) => x.type === 'image'), 'the agent keeps watching');
    await page.screenshot({ path: join(artifacts, 'lease-taken-over.png'), fullPage: true });
  });

  it('the person\'s clicks land where they point and their typing arrives in the guest', async () => {
    const o = centre(other);
    await clickScreenAt(o.x, o.y);
    await until(async () => ((await focusedId()) === other.id ? true : undefined), 'the person\'s click to focus the other window', 10_000);
    const r = centre(reader);
    await clickScreenAt(r.x, r.y);
    await until(async () => ((await focusedId()) === reader.id ? true : undefined), 'the person\'s click to focus the reader window', 10_000);

    await page.locator('#screen').focus();
    await page.keyboard.type(PERSON_TEXT);
    await page.keyboard.press('Enter');
    const lines = await until(async () => {
      const got = await guestLines();
      return got.split('\n').length > 2 ? got : undefined;
    }, 'the person\'s line in the guest', 15_000);
    assert.equal(lines, `${AGENT_WORD}\n${PERSON_TEXT}\n`, 'exactly what the person typed, and nothing the refused agent sent');
    await page.screenshot({ path: join(artifacts, 'lease-person-typed.png'), fullPage: true });
  });

  it('the person pastes into the machine (the box, and Ctrl+V on the screen) and copies its clipboard out', async () => {
    assert.equal(await page.locator('#clipboard-panel').isVisible(), true, 'the clipboard panel shows while in control');
    await page.locator('#paste-text').fill(PASTED);
    await page.locator('#paste').click();
    await page.waitForFunction(() => /Pasted \d+ characters/.test(document.querySelector('#message')?.textContent ?? ''), undefined, { timeout: 15_000 });
    await page.locator('#screen').focus();
    await page.keyboard.press('Enter');
    await until(async () => ((await guestLines()).endsWith(`${PASTED}\n`) ? true : undefined), 'the pasted line in the guest', 15_000);

    // Ctrl+V on the screen: the browser's paste event with the person's clipboard.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.evaluate((text) => navigator.clipboard.writeText(text), PASTED_KEYS);
    await page.locator('#screen').focus();
    await page.keyboard.press('Control+V');
    await sleep(500);
    await page.keyboard.press('Enter');
    const lines = await until(async () => {
      const got = await guestLines();
      return got.endsWith(`${PASTED_KEYS}\n`) ? got : undefined;
    }, 'the Ctrl+V line in the guest', 15_000);
    assert.equal(lines, `${AGENT_WORD}\n${PERSON_TEXT}\n${PASTED}\n${PASTED_KEYS}\n`, 'each paste arrived once, and no ctrl+v key reached the terminal');

    await page.locator('#copy-out').click();
    await page.waitForFunction((text) => document.querySelector('#clipboard-text')?.value === text, COPY_OUT, { timeout: 15_000 });
    assert.equal(await page.locator('#clipboard-text').isVisible(), true);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), COPY_OUT, 'the machine\'s clipboard reached this computer\'s');
    await page.screenshot({ path: join(artifacts, 'lease-clipboard.png'), fullPage: true });
  });

  it('hand back with a note: the agent drives again and its next result carries the note, once', async () => {
    await page.locator('#handback-note').fill(NOTE);
    await page.locator('#handback').click();
    await page.waitForFunction(() => document.querySelector('#control')?.textContent?.trim() === 'agent', undefined, { timeout: 10_000 });

    const c = centre(reader);
    const click = await ok('vm_click', { x: c.x, y: c.y, coordinate_space: 'screen' });
    assert.equal(click.structuredContent.human_note, NOTE);
    assert.ok(click.content.some((x: any) => x.type === 'text' && x.text.includes(`Note from the person who had control: ${NOTE}`)), JSON.stringify(click.content.filter((x: any) => x.type === 'text')));
    const next = await ok('vm_type', { text: 'agent again\n' });
    assert.equal(next.structuredContent.human_note, undefined, 'the note is delivered once');
    assert.equal(await until(async () => {
      const got = await guestLines();
      return got.split('\n').length > 3 ? got : undefined;
    }, 'the agent\'s line after hand-back', 15_000), `${AGENT_WORD}\n${PERSON_TEXT}\n${PASTED}\n${PASTED_KEYS}\nagent again\n`);
    // A command whose output the recording shows beside it (a secret in it masked), and a refused call.
    const said = await ok('vm_exec', { shell: `echo "${EXEC_OUT}"; echo "API_TOKEN=${SECRET}"` });
    assert.match(said.structuredContent.stdout, new RegExp(SECRET), 'the agent itself gets the output whole');
  });

  it('the recording has the agent\'s steps with screenshots and the person\'s turn, in the API and on the page', async () => {
    // The frame after an action is captured off the call's path: wait for the last one.
    const rec = await until(async () => {
      const r = await recording();
      const last = r.steps.filter((s) => s.tool === 'vm_type' && s.outcome === 'ok').at(-1);
      return last?.args?.text === 'agent again\n' && last.screenshot ? r : undefined;
    }, 'the recording to hold the frame after the last vm_type', 20_000, 500);
    writeFileSync(join(artifacts, 'recording.json'), JSON.stringify(rec, null, 2));
    const steps = rec.steps;
    assert.equal(rec.lease.lease_id, lease);
    const seqs = steps.map((s) => s.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'steps in order');
    for (const s of steps) {
      assert.ok(s.at && ['ok', 'error'].includes(s.outcome) && typeof s.duration_ms === 'number', JSON.stringify(s).slice(0, 300));
      assert.ok(!('lease_id' in (s.args ?? {})), 'lease_id is dropped from the args');
    }

    const agentSteps = steps.filter((s) => s.actor === 'agent');
    const shots = agentSteps.filter((s) => s.tool === 'vm_screenshot');
    assert.ok(shots.length >= 2, 'the agent\'s screenshots are steps');
    for (const s of shots) assert.ok(s.screenshot && await decodesAsPng(s.screenshot), 'the screenshot the agent saw, as a PNG data URL');
    const typedWord = agentSteps.find((s) => s.tool === 'vm_type' && s.args?.text === `${AGENT_WORD}\n`);
    assert.ok(typedWord, 'the agent\'s vm_type with its text');
    assert.equal(typedWord.outcome, 'ok');
    assert.ok(typedWord.screenshot && await decodesAsPng(typedWord.screenshot), 'a frame after the action');
    const refused = agentSteps.filter((s) => s.outcome === 'error' && s.code === 'HUMAN_CONTROL').map((s) => s.tool);
    assert.deepEqual(refused, ['vm_click', 'vm_type'], 'the refused calls are recorded as such');

    const human = steps.filter((s) => s.actor === 'human');
    const takeover = human.find((s) => s.tool === 'takeover');
    const handback = human.find((s) => s.tool === 'handback');
    const inputs = human.filter((s) => s.tool === 'input');
    assert.ok(takeover && handback, 'take-over and hand-back are steps');
    assert.equal(handback.note ?? handback.args?.note, NOTE);
    assert.ok(inputs.every((s) => s.seq > takeover.seq && s.seq < handback.seq), 'the person\'s input falls inside their turn');
    assert.equal(inputs.filter((s) => s.args?.type === 'click').length, 2, 'both clicks');
    assert.equal(inputs.filter((s) => s.args?.type === 'type').map((s) => s.args.text).join(''), PERSON_TEXT, 'the typed text, in order');
    assert.ok(inputs.some((s) => s.args?.type === 'key' && s.args.keys === 'Return'), 'Enter as vm_key\'s Return');
    assert.ok(inputs.some((s) => s.screenshot), 'a frame after the person\'s input');
    const pastes = inputs.filter((s) => s.args?.type === 'paste');
    assert.deepEqual(pastes.map((s) => s.args), [{ type: 'paste', chars: PASTED.length }, { type: 'paste', chars: PASTED_KEYS.length }], 'pastes recorded by length, not their text');
    assert.ok(!JSON.stringify(human).includes(PASTED), 'the person\'s steps do not keep the pasted text');
    assert.ok(human.some((s) => s.tool === 'clipboard' && s.args?.chars === COPY_OUT.length), 'the copy out is a step');
    // The result beside the arguments: the command's output (its secret masked), the refusal's code and message.
    const exec = agentSteps.find((s) => s.tool === 'vm_exec' && String(s.result?.stdout ?? '').includes(EXEC_OUT));
    assert.ok(exec, `a vm_exec step with its output: ${JSON.stringify(agentSteps.filter((s) => s.tool === 'vm_exec').map((s) => s.result))}`);
    assert.equal(exec.result.exit_code, 0);
    assert.match(exec.result.stdout, /API_TOKEN=\*\*\*/);
    assert.ok(!JSON.stringify(rec).includes(SECRET), 'the secret the command printed is not in the recording');
    const refusal = agentSteps.find((s) => s.outcome === 'error' && s.code === 'HUMAN_CONTROL');
    assert.equal(refusal?.result?.code, 'HUMAN_CONTROL');
    assert.match(refusal?.result?.message ?? '', /\S/);
    for (const s of inputs.filter((x) => x.screenshot)) assert.ok(await decodesAsPng(s.screenshot));
    const noted = agentSteps.find((s) => s.seq > handback.seq && s.tool === 'vm_click');
    assert.ok(noted && noted.outcome === 'ok', 'the agent drives after hand-back');

    // The page's timeline shows the same turns, with thumbnails.
    for (const tool of ['vm_screenshot', 'vm_type', 'takeover', 'input', 'handback', 'vm_click']) {
      await page.locator(`#steps li[data-tool="${tool}"]`).first().waitFor({ timeout: 15_000 }).catch(async (err) => {
        throw new Error(`the page's timeline shows no ${tool} step (${steps.length} steps in the API; the page has ${await page.locator('#steps li').count()} #steps li, #step-count says ${JSON.stringify(await page.locator('#step-count').innerText())}): ${err.message.split('\n')[0]}`);
      });
    }
    assert.ok((await page.locator('#steps li img').count()) > 0, 'the timeline has thumbnails');
    const execLine = page.locator(`#steps li[data-tool="vm_exec"] .result`, { hasText: EXEC_OUT });
    await execLine.first().waitFor({ timeout: 15_000 });
    assert.match(await execLine.first().innerText(), new RegExp(`^→ exit 0 · stdout: ${EXEC_OUT}\\s+API_TOKEN=\\*\\*\\*`));
    assert.match(await page.locator('#steps li[data-tool="vm_click"].outcome-error .result').first().innerText(), /^→ HUMAN_CONTROL: \S/);
    assert.ok(!(await page.content()).includes(SECRET), 'nor on the page');
    await page.screenshot({ path: join(artifacts, 'lease-timeline.png'), fullPage: true });
  });

  it('the recording downloads as one self-contained HTML file', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download').click()]);
    assert.equal(download.suggestedFilename(), `vmhub-${lease.slice(0, 8)}-recording.html`);
    const file = join(artifacts, download.suggestedFilename());
    await download.saveAs(file);
    const html = readFileSync(file, 'utf8');
    assert.doesNotMatch(html, /https?:\/\//i, 'no http(s) URLs: nothing is fetched when it is opened');
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=/i, 'no external scripts or styles');
    assert.ok((html.match(/src="data:image\/png;base64,/g) ?? []).length >= 2, 'images inline as data URLs');
    for (const needle of [AGENT_WORD, NOTE, 'takeover', 'handback', 'HUMAN_CONTROL']) assert.ok(html.includes(needle), `the file shows ${needle}`);

    const r = await api(`/api/leases/${lease}/recording?format=html`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-disposition') ?? '', new RegExp(`attachment; filename="vmhub-${lease.slice(0, 8)}-recording.html"`));
  });

  it('release asks first: Cancel keeps the lease; OK ends it and removes the container', async () => {
    dialogs = { answer: 'dismiss', seen: [] };
    await page.locator('#release').click();
    await sleep(1500);
    assert.equal(dialogs.seen.length, 1, 'one question');
    assert.match(dialogs.seen[0]!, new RegExp(`^Release lease ${lease.slice(0, 8)}\\?`));
    assert.equal((await call('vm_lease_status', { lease_id: lease })).structuredContent?.status, 'ready', 'Cancel left the lease alone');
    assert.notEqual((await run('docker', ['ps', '-q', '--filter', `name=vmhub-${instance}-${lease}`])).stdout.trim(), '', 'its container runs');

    dialogs = { answer: 'accept', seen: [] };
    await page.locator('#release').click();
    const status = await until(async () => {
      const s = (await call('vm_lease_status', { lease_id: lease })).structuredContent?.status;
      return ['released', 'expired', 'failed'].includes(s) ? s : undefined;
    }, 'the lease to be released', 30_000, 500);
    assert.equal(status, 'released');
    released = true;
    await until(async () => {
      const { stdout } = await run('docker', ['ps', '-aq', '--filter', `name=vmhub-${instance}-${lease}`]);
      return stdout.trim() === '' ? true : undefined;
    }, 'the container to be gone', 30_000, 500);
    assert.equal((await api(`/api/leases/${lease}/screen`)).status, 409, 'no screen for an ended lease');
    assert.equal(dialogs.seen.length, 1);
  });

  it('the list shows the ended lease with a placeholder, no broken image; its page reads the end as sentences', async () => {
    await page.goto(`${base}/ui/`);
    const row = page.locator(`#leases tr[data-lease-id="${lease}"]`);
    await row.waitFor({ timeout: 15_000 });
    await page.waitForFunction((id) => /released/.test(document.querySelector(`#leases tr[data-lease-id="${id}"]`)?.textContent ?? ''), lease, { timeout: 15_000 });
    await sleep(2500); // a thumbnail round would have run
    const images = await page.evaluate(() => [...document.querySelectorAll('#leases img')].map((i: any) => ({ complete: i.complete, width: i.naturalWidth, src: String(i.src).slice(0, 30) })));
    for (const i of images) assert.ok(i.complete && i.width > 0, `an <img> on the list that did not load: ${JSON.stringify(i)}`);
    assert.equal((await row.locator('.thumb.placeholder').innerText()).trim(), 'ended');
    await page.screenshot({ path: join(artifacts, 'list-ended.png'), fullPage: true });

    await page.goto(`${base}/ui/leases/${lease}`);
    await page.waitForFunction(() => /Released/.test(document.querySelector('#events')?.textContent ?? ''), undefined, { timeout: 15_000 });
    const events = await page.locator('#events li').allInnerTexts();
    assert.ok(events.some((e) => /Release requested/.test(e)), JSON.stringify(events));
    assert.ok(events.some((e) => /^.*Released — its machine was destroyed\.$/m.test(e)), JSON.stringify(events));
  });
});
