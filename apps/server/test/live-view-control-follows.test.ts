// The lease page's control badge follows take-overs made elsewhere (issue 28 point 5), in a real
// browser: Debian's headless Chromium (playwright-core) on the lease page of HTTP server A, while
// the take-over and the hand-back are made through the live API — of the same server (what
// another tab does), and of server B, another process on the same SQLite store. The badge must
// show each within FOLLOW_MS; the time it took is printed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sandbox, uiSignIn, type Sandbox } from './harness.ts';
import { httpAgent, liveApi, startHttp, type HttpAgent, type HttpServer } from './http-harness.ts';

const CHROMIUM = process.env.VMHUB_CHROMIUM ?? '/usr/bin/chromium';
const TOKEN = 'control-follows-7a2e4c91';
/** The page polls the lease every 2 s; a change made elsewhere must show within this. */
const FOLLOW_MS = 5000;

let box: Sandbox;
let a: HttpServer;
let b: HttpServer;
let agent: HttpAgent;
let browser: Browser;
let page: Page;
let lease = '';

/** How long the badge took to read `want` after `act` answered. */
async function badgeFollows(page: Page, want: 'human' | 'agent', act: () => Promise<{ status: number }>): Promise<number> {
  const r = await act();
  assert.equal(r.status, 200);
  const started = Date.now();
  await page.waitForFunction((w) => (globalThis as any).document.getElementById('control')?.textContent === w, want, { timeout: FOLLOW_MS });
  return Date.now() - started;
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: install Debian's chromium (scripts/setup.sh) or set VMHUB_CHROMIUM`);
  box = sandbox();
  [a, b] = await Promise.all([startHttp(box, { VMHUB_HTTP_TOKEN: TOKEN }), startHttp(box, { VMHUB_HTTP_TOKEN: TOKEN })]);
  agent = await httpAgent(a, TOKEN);
  const created = await agent.call('vm_lease_create', { template: 'fake-desktop' });
  assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
  lease = created.structuredContent.lease_id;
  for (let status = ''; status !== 'ready';) status = (await agent.call('vm_lease_status', { lease_id: lease, wait_seconds: 5 })).structuredContent.status;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
  const context = await browser.newContext();
  const signIn = await uiSignIn(a.base, TOKEN);
  assert.ok(signIn.session, `signed in: ${signIn.status}`);
  await context.addCookies([{ name: 'vmhub_session', value: signIn.session!, url: a.base }]);
  page = await context.newPage();
  await page.goto(`${a.base}/ui/leases/${lease}`);
  await page.waitForFunction(() => (globalThis as any).document.getElementById('control')?.textContent === 'agent', undefined, { timeout: 10_000 });
});

after(async () => {
  await browser?.close().catch(() => undefined);
  await agent?.close().catch(() => undefined);
  a?.stop();
  b?.stop();
  box?.cleanup();
});

describe('the lease page follows take-overs made elsewhere', () => {
  it('a take-over and a hand-back through the API of the same server (another tab) show', async () => {
    const shown = await badgeFollows(page, 'human', () => liveApi(a, TOKEN, `/api/leases/${lease}/takeover`, {}));
    const back = await badgeFollows(page, 'agent', () => liveApi(a, TOKEN, `/api/leases/${lease}/handback`, {}));
    console.log(`same server: take-over shown after ${shown} ms, hand-back after ${back} ms`);
  });

  it('a take-over and a hand-back through another server process on the store show', async () => {
    const shown = await badgeFollows(page, 'human', () => liveApi(b, TOKEN, `/api/leases/${lease}/takeover`, {}));
    assert.equal(await page.locator('#banner').isVisible(), true, 'the page says the agent is paused');
    const back = await badgeFollows(page, 'agent', () => liveApi(b, TOKEN, `/api/leases/${lease}/handback`, {}));
    console.log(`other server: take-over shown after ${shown} ms, hand-back after ${back} ms`);
  });
});
