// The live view's sign-in in a real browser: Debian's headless Chromium (playwright-core, no
// browser download) against the BUILT server (dist/bin.js --http) with the fake plugins, two
// principals. The older link (/ui/?token=) and the fragment link (/ui/login#token=) land on the
// dashboard signed in, with a random HttpOnly id in the cookie and the token gone from the address
// and the history. Pages of another origin — another port of the same host (same-site: cookies
// ignore ports) and another host name (cross-site) — cannot switch a signed-in person to their own
// principal: their form POST is refused by the browser's own Origin and Sec-Fetch-Site, and their
// link opens the sign-in page without submitting it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandbox, startHttp, type HttpServer, type Sandbox } from './harness.ts';

declare const document: any;

const CHROMIUM = process.env.VMHUB_CHROMIUM ?? '/usr/bin/chromium';
const TOKENS = { alice: 'ui-browser-alice-7d0e3b95a1', bob: 'ui-browser-bob-2c6f81e4d9' } as const;

let box: Sandbox;
let server: HttpServer | undefined;
let base = '';
let attacker: Server;
let attackerPort = 0;
let browser: Browser;

async function startServer(): Promise<string> {
  server = await startHttp(box, { VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob });
  return server.base;
}

/** Another site's pages: a form that posts bob's token to /ui/login by itself, and a link to the sign-in link. */
function startAttacker(): Promise<void> {
  attacker = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const token = url.searchParams.get('token') ?? '';
    const body = url.pathname === '/post'
      ? `<form id="f" method="post" action="${base}/ui/login"><input name="token" value="${token}"><input name="next" value="/ui/"></form><script>document.getElementById('f').submit()</script>`
      : `<a id="go" href="${base}/ui/?token=${token}">open the dashboard</a>`;
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><html><body>${body}</body></html>`);
  });
  return new Promise((resolve) => attacker.listen(0, '127.0.0.1', () => { attackerPort = (attacker.address() as { port: number }).port; resolve(); }));
}

async function signedInAs(page: Page): Promise<string> {
  await page.goto(`${base}/ui/`);
  const slot = page.locator('#principal');
  await slot.waitFor({ state: 'visible', timeout: 10_000 });
  return slot.innerText();
}

async function sessionCookie(context: BrowserContext): Promise<{ value: string; httpOnly: boolean; sameSite: string } | undefined> {
  return (await context.cookies(base)).find((c) => c.name === 'vmhub_session');
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: install Debian's chromium (scripts/setup.sh) or set VMHUB_CHROMIUM`);
  box = sandbox({ http: { tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] } });
  base = await startServer();
  await startAttacker();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
});

after(async () => {
  await browser?.close().catch(() => undefined);
  attacker?.close();
  await server?.stop();
  box?.cleanup();
});

describe('live view sign-in in headless Chromium', () => {
  let alice: BrowserContext;
  let page: Page;
  let aliceId = '';

  it('opening /ui/?token=… once lands on the dashboard signed in; the cookie holds a random id, and the token leaves the address and the history', async () => {
    alice = await browser.newContext();
    page = await alice.newPage();
    await page.goto(`${base}/ui/?token=${TOKENS.alice}`);
    await page.waitForURL(`${base}/ui/`);
    await page.locator('#principal').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await page.locator('#principal').innerText(), 'alice');
    const cookie = await sessionCookie(alice);
    assert.ok(cookie, 'the sign-in set vmhub_session');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    for (const tok of Object.values(TOKENS)) assert.ok(!cookie.value.includes(tok), 'no token in the cookie');
    assert.equal((await alice.cookies(base)).some((c) => Object.values(TOKENS).some((tok) => c.value.includes(tok))), false);
    assert.ok(!(await page.evaluate(() => document.cookie)).includes('vmhub_session'), 'page scripts cannot read the id');
    aliceId = cookie.value;
    await page.goBack();
    assert.ok(!page.url().includes('token'), `the previous history entry is ${page.url()}`);
  });

  it('a lease page\'s link lands on that lease page signed in, and the page\'s own POSTs (renew) work with the sign-in id', async () => {
    const agent = new Client({ name: 'sign-in-agent', version: '1' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKENS.alice}` } } }));
    try {
      const lease = ((await agent.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-stub' } })).structuredContent as any).lease_id as string;
      const context = await browser.newContext();
      const p = await context.newPage();
      await p.goto(`${base}/ui/leases/${lease}?token=${TOKENS.alice}`);
      await p.waitForURL(`${base}/ui/leases/${lease}`);
      const renew = p.locator('#renew');
      await p.waitForFunction(() => document.querySelector('#principal')?.textContent === 'alice' && !document.querySelector('#renew')?.disabled, undefined, { timeout: 10_000 });
      const [answer] = await Promise.all([p.waitForResponse((r) => r.url() === `${base}/api/leases/${lease}/renew`), renew.click()]);
      assert.equal(answer.status(), 200, 'a cookie POST from the page itself is accepted');
      await context.close();
      await agent.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } });
    } finally {
      await agent.close();
    }
  });

  it('/ui/login#token=… signs in too (the token never reaches the server in an address)', async () => {
    const context = await browser.newContext();
    const p = await context.newPage();
    const seen: string[] = [];
    p.on('request', (r) => seen.push(r.url()));
    await p.goto(`${base}/ui/login#token=${TOKENS.bob}`);
    await p.waitForURL(`${base}/ui/`);
    await p.locator('#principal').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await p.locator('#principal').innerText(), 'bob');
    assert.deepEqual(seen.filter((u) => u.includes(TOKENS.bob)), [], 'no request address carried the token');
    await context.close();
  });

  for (const host of ['127.0.0.1', 'localhost']) {
    it(`a form on ${host}:<another port> posting bob's token is refused (403); alice stays signed in as alice`, async () => {
      const answers: number[] = [];
      page.on('response', (r) => { if (r.url() === `${base}/ui/login`) answers.push(r.status()); });
      await page.goto(`http://${host}:${attackerPort}/post?token=${TOKENS.bob}`);
      await page.waitForURL(`${base}/ui/login`);
      await page.waitForLoadState();
      page.removeAllListeners('response');
      assert.deepEqual(answers, [403]);
      assert.match(await page.content(), new RegExp(`refused.*origin http://${host}:${attackerPort} is not allowed`, 's'));
      assert.equal((await sessionCookie(alice))?.value, aliceId, 'the cookie did not change');
      assert.equal(await signedInAs(page), 'alice');
    });
  }

  it('a link from another site to /ui/?token=… opens the sign-in page without submitting it; the person can still sign in on purpose', async () => {
    await page.goto(`http://127.0.0.1:${attackerPort}/link?token=${TOKENS.bob}`);
    await page.click('#go');
    await page.locator('#sign-in-confirm').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(page.url(), `${base}/ui/`, 'the token left the address bar');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(page.url(), `${base}/ui/`, 'nothing was submitted');
    assert.equal((await sessionCookie(alice))?.value, aliceId);
    await page.click('#sign-in button[type=submit]');
    await page.locator('#principal').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await page.locator('#principal').innerText(), 'bob', 'a deliberate press signs in');
    assert.notEqual((await sessionCookie(alice))?.value, aliceId, 'a new id for the new sign-in');
    await alice.close();
  });
});
