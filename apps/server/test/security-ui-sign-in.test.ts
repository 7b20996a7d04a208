// The live view's browser sign-in attacked through the BUILT server (dist/bin.js --http) over raw
// HTTP: the cookie carries a random sign-in id and never a token; that id is refused on /mcp;
// /ui/login refuses a POST from another site or origin (login CSRF) without setting a cookie; a
// sign-in ends when unused, at its time limit, with its token (SIGHUP) and with the server.
// Each class counts attempts and outcomes and prints them (t.diagnostic) for docs/security.md.
// The same flows in a real browser: ui-sign-in-browser.test.ts.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it, type TestContext } from 'node:test';
import { startHttp, uiSignIn, type HttpServer, type Sandbox } from './harness.ts';
import { httpSuite, sighup } from './http-harness.ts';

const TOKENS = { default: 'ui-default-0c4f7a91d2', alice: 'ui-alice-5be1c09a77', bob: 'ui-bob-93d2e6f04b' } as const;
const ENV = { VMHUB_HTTP_TOKEN: TOKENS.default, VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob };
const NAMED = [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }];
const ALL_TOKENS: string[] = Object.values(TOKENS);

interface Tally { attempts: number; accepted: number; refused: number; wrong: number }
const tally = (): Tally => ({ attempts: 0, accepted: 0, refused: 0, wrong: 0 });
const report = (t: TestContext, what: string, n: Tally) => t.diagnostic(`${what}: ${n.attempts} attempts, ${n.accepted} accepted as expected, ${n.refused} refused as expected, ${n.wrong} wrong`);
/** Counts one attempt: `ok` is whether it went as expected; `refusal` whether a refusal was expected. */
function count(t: TestContext, n: Tally, what: string, ok: boolean, refusal: boolean): void {
  n.attempts++;
  if (!ok) { n.wrong++; t.diagnostic(`wrong: ${what}`); } else if (refusal) n.refused++;
  else n.accepted++;
}

/** A test of attempts counted in `n`: reported under `what` at its end, and failed by any that went wrong. */
function counted(name: string, what: string, fn: (t: TestContext, n: Tally) => Promise<void>, options: { timeout?: number } = {}): void {
  it(name, options, async (t) => {
    const n = tally();
    await fn(t, n);
    report(t, what, n);
    assert.equal(n.wrong, 0);
  });
}

const start = (box: Sandbox): Promise<HttpServer> => startHttp(box, { VMHUB_LOG_LEVEL: 'info', ...ENV });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET /api/leases with a cookie: the status and the principal the server saw. */
async function apiAs(base: string, cookie: string): Promise<{ status: number; principal: string | null; setCookies: string[] }> {
  const r = await fetch(`${base}/api/leases`, { headers: { Cookie: cookie } });
  await r.arrayBuffer();
  return { status: r.status, principal: r.headers.get('x-vmhub-principal'), setCookies: r.headers.getSetCookie() };
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

async function initialize(base: string, headers: Record<string, string>): Promise<{ status: number; sid: string | null }> {
  const r = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: INIT });
  await r.arrayBuffer();
  return { status: r.status, sid: r.headers.get('mcp-session-id') };
}

describe('security: live-view sign-in (built server, default lifetimes)', () => {
  const suite = httpSuite(start, { http: { tokens: NAMED } });

  counted('the cookie carries a random sign-in id, never a token; a GET never signs in', 'sign-in cookies', async (t, n) => {
    const ids = new Set<string>();
    for (const principal of ['default', 'alice', 'bob'] as const) {
      for (let i = 0; i < 3; i++) {
        const s = await uiSignIn(suite.srv.base, TOKENS[principal]);
        const value = s.session ?? '';
        const attrs = s.setCookies.find((c) => c.startsWith('vmhub_session='))?.split('; ') ?? [];
        const ok = s.status === 303 && s.location === '/ui/' && value.length >= 43
          && ALL_TOKENS.every((tok) => value !== tok && !value.includes(tok) && !tok.includes(value) && !decodeURIComponent(value).includes(tok))
          && !ids.has(value) && ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=43200'].every((a) => attrs.includes(a))
          && s.setCookies.every((c) => ALL_TOKENS.every((tok) => !c.includes(tok)));
        count(t, n, `sign-in ${principal}: ${s.status} ${s.setCookies.join(' | ')}`, ok, false);
        ids.add(value);
        const api = await apiAs(suite.srv.base, s.cookie);
        count(t, n, `the cookie of ${principal} on /api: ${api.status} as ${api.principal}`, api.status === 200 && api.principal === principal, false);
      }
    }
    // The older link still opens the sign-in page, but a GET sets no cookie and does not echo the token.
    for (const path of [`/ui/?token=${TOKENS.alice}`, `/ui/leases/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}?token=${TOKENS.alice}`, '/ui/login']) {
      const r = await fetch(`${suite.srv.base}${path}`, { redirect: 'manual', headers: { 'Sec-Fetch-Site': 'none' } });
      const html = await r.text();
      count(t, n, `GET ${path}: ${r.status}`, r.status === 200 && r.headers.getSetCookie().length === 0 && html.includes('action="/ui/login"') && html.includes('data-auto="1"') && !html.includes(TOKENS.alice), false);
    }
    // The cookie of earlier versions (the token itself) signs in nothing now, and is cleared.
    for (const path of ['/api/leases', '/ui/']) {
      const r = await fetch(`${suite.srv.base}${path}`, { headers: { Cookie: `vmhub_token=${TOKENS.alice}` } });
      await r.arrayBuffer();
      count(t, n, `old token cookie on ${path}: ${r.status}`, r.status === 401 && (path === '/api/leases' || r.headers.getSetCookie().some((c) => /^vmhub_token=;.*Max-Age=0/.test(c))), true);
    }
  });

  counted('the sign-in cookie is refused on /mcp (401): only Authorization: Bearer opens MCP sessions', 'sign-in cookie on /mcp', async (t, n) => {
    const s = await uiSignIn(suite.srv.base, TOKENS.alice);
    assert.ok(s.session);
    for (const [what, headers] of [
      ['cookie alone', { Cookie: s.cookie }],
      ['cookie and a wrong bearer', { Cookie: s.cookie, Authorization: 'Bearer wrong' }],
      ['the id as a bearer', { Authorization: `Bearer ${s.session}` }],
      ['the old token cookie', { Cookie: `vmhub_token=${TOKENS.alice}` }],
    ] as Array<[string, Record<string, string>]>) {
      const r = await initialize(suite.srv.base, headers);
      count(t, n, `/mcp with ${what}: ${r.status}`, r.status === 401 && r.sid === null, true);
    }
    const bearer = await initialize(suite.srv.base, { Authorization: `Bearer ${TOKENS.alice}`, Cookie: s.cookie });
    count(t, n, `/mcp with the bearer: ${bearer.status}`, bearer.status === 200 && bearer.sid !== null, false);
  });

  counted('a sign-in POST from another site or origin is refused (403) and sets no cookie (login CSRF)', 'sign-in CSRF', async (t, n) => {
    const alice = await uiSignIn(suite.srv.base, TOKENS.alice);
    assert.ok(alice.session);
    const crossSite: Array<Record<string, string | undefined>> = [
      { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'http://evil.example', 'Sec-Fetch-Site': undefined },
      { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'same-origin' },
      { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: undefined, 'Sec-Fetch-Site': undefined },
      { Origin: undefined, 'Sec-Fetch-Site': 'same-origin' },
      // another port of the same host: same-site for a browser (cookies ignore ports), not same-origin
      { Origin: suite.srv.base.replace(/:\d+$/, ':1'), 'Sec-Fetch-Site': 'same-site' },
      { Origin: suite.srv.base, 'Sec-Fetch-Site': 'same-site' },
      { Origin: suite.srv.base, 'Sec-Fetch-Site': 'cross-site' },
      { Origin: suite.srv.base, 'Sec-Fetch-Site': 'none' },
    ];
    for (const headers of crossSite) {
      // with alice's cookie (switching her to bob) and without one (signing a stranger in as bob)
      for (const cookie of [alice.cookie, undefined]) {
        const r = await uiSignIn(suite.srv.base, TOKENS.bob, { ...headers, Cookie: cookie });
        count(t, n, `POST /ui/login ${JSON.stringify(headers)}: ${r.status} ${r.setCookies.join(' | ')}`, r.status === 403 && r.setCookies.length === 0 && r.session === undefined, true);
      }
    }
    const still = await apiAs(suite.srv.base, alice.cookie);
    count(t, n, `alice after the attempts: ${still.status} as ${still.principal}`, still.status === 200 && still.principal === 'alice', false);
    // Wrong tokens, a JSON body, an oversized form: no cookie either.
    for (const token of ['nope', '', `${TOKENS.bob}x`, TOKENS.bob.toUpperCase(), `Bearer ${TOKENS.bob}`]) {
      const r = await uiSignIn(suite.srv.base, token);
      count(t, n, `POST /ui/login token ${JSON.stringify(token)}: ${r.status}`, r.status === 401 && r.session === undefined && /not one this vmhub server accepts/.test(r.text), true);
    }
    const json = await fetch(`${suite.srv.base}/ui/login`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/json', Origin: suite.srv.base }, body: JSON.stringify({ token: TOKENS.bob }) });
    await json.arrayBuffer();
    count(t, n, `POST /ui/login as JSON: ${json.status}`, json.status === 415 && json.headers.getSetCookie().length === 0, true);
    const big = await uiSignIn(suite.srv.base, `${TOKENS.bob}&pad=${'x'.repeat(20_000)}`);
    count(t, n, `POST /ui/login of 20 kB: ${big.status}`, big.status === 413 && big.session === undefined, true);
    // A link from another site opens the sign-in page without submitting it by itself.
    const link = await fetch(`${suite.srv.base}/ui/?token=${TOKENS.bob}`, { headers: { 'Sec-Fetch-Site': 'cross-site', Cookie: alice.cookie } });
    const page = await link.text();
    count(t, n, `cross-site link: ${link.status}`, link.status === 200 && page.includes('data-auto="0"') && link.headers.getSetCookie().length === 0, true);
    // Where a sign-in lands: only live-view pages.
    const lease = '3f2b8c1e-0d4a-4e6b-9c7d-1a2b3c4d5e6f';
    for (const [next, expected] of [['/ui/', '/ui/'], [`/ui/leases/${lease}`, `/ui/leases/${lease}`], ['//evil.example/', '/ui/'], ['http://evil.example/', '/ui/'], ['/ui/leases/../../x', '/ui/'], ['/api/leases', '/ui/'], ['/\\evil.example', '/ui/']]) {
      const r = await uiSignIn(suite.srv.base, TOKENS.bob, {}, next);
      count(t, n, `next ${next}: ${r.location}`, r.status === 303 && r.location === expected, false);
    }
    // The same page signing in as bob replaces alice's sign-in: her id ends.
    const switched = await uiSignIn(suite.srv.base, TOKENS.bob, { Cookie: alice.cookie });
    count(t, n, 'same-origin switch to bob', switched.status === 303 && (await apiAs(suite.srv.base, switched.cookie)).principal === 'bob', false);
    count(t, n, 'alice\'s replaced id', (await apiAs(suite.srv.base, alice.cookie)).status === 401, true);
  });
});

describe('security: live-view sign-in lifetime (built server)', () => {
  const suite = httpSuite(start, { http: { tokens: NAMED, ui_session_idle_seconds: 2, ui_session_max_seconds: 5 } });

  it('a sign-in ends after http.ui_session_idle_seconds unused and at http.ui_session_max_seconds however busy', { timeout: 60_000 }, async (t) => {
    const s = suite.srv!;
    const idle = await uiSignIn(s.base, TOKENS.alice);
    assert.ok(idle.setCookies.some((c) => c.split('; ').includes('Max-Age=5')), idle.setCookies.join(' | '));
    assert.equal((await apiAs(s.base, idle.cookie)).status, 200);
    await sleep(1200);
    assert.equal((await apiAs(s.base, idle.cookie)).status, 200, 'used within the idle time: still signed in');
    await sleep(2300);
    const ended = await apiAs(s.base, idle.cookie);
    assert.equal(ended.status, 401, 'unused for 2.3 s > 2 s');
    assert.ok(ended.setCookies.some((c) => /^vmhub_session=;.*Max-Age=0/.test(c)), 'the ended cookie is cleared');
    const page = await fetch(`${s.base}/ui/`, { headers: { Cookie: idle.cookie } });
    assert.equal(page.status, 401);
    assert.match(await page.text(), /Your sign-in ended/);

    const busy = await uiSignIn(s.base, TOKENS.alice);
    const began = Date.now();
    const seen: Array<[number, number]> = [];
    for (;;) {
      const status = (await apiAs(s.base, busy.cookie)).status;
      seen.push([Date.now() - began, status]);
      if (status !== 200 || Date.now() - began > 8000) break;
      await sleep(500);
    }
    const [endedAt, last] = seen.at(-1)!;
    t.diagnostic(`busy sign-in: ${seen.length - 1} requests answered 200 over ${seen.at(-2)?.[0]} ms, then ${last} at ${endedAt} ms (cap 5000 ms)`);
    assert.equal(last, 401, 'a sign-in used every 0.5 s still ends at its cap');
    assert.ok(endedAt >= 4500 && endedAt < 6500, `ended at ${endedAt} ms`);
  });

  counted('a sign-in ends with its token (SIGHUP) and with the server; putting the token back does not revive it', 'sign-in revocation', async (t, n) => {
    let s = suite.srv!;
    const alice = await uiSignIn(s.base, TOKENS.alice);
    const bob = await uiSignIn(s.base, TOKENS.bob);
    const original = JSON.parse(readFileSync(suite.box.configFile, 'utf8'));
    const hup = () => sighup(s);
    writeFileSync(suite.box.configFile, JSON.stringify({ ...original, http: { ...original.http, tokens: [NAMED[0]] } }));
    await hup();
    count(t, n, 'bob after his token was removed', (await apiAs(s.base, bob.cookie)).status === 401, true);
    count(t, n, 'alice after bob\'s token was removed', (await apiAs(s.base, alice.cookie)).status === 200, false);
    count(t, n, 'bob signing in with the removed token', (await uiSignIn(s.base, TOKENS.bob)).status === 401, true);
    writeFileSync(suite.box.configFile, JSON.stringify(original));
    await hup();
    count(t, n, 'bob\'s old sign-in after the token is back', (await apiAs(s.base, bob.cookie)).status === 401, true);
    count(t, n, 'bob signing in again', (await uiSignIn(s.base, TOKENS.bob)).status === 303, false);

    await s.stop();
    s = suite.srv = await start(suite.box);
    count(t, n, 'alice\'s sign-in after a restart', (await apiAs(s.base, alice.cookie)).status === 401, true);
    count(t, n, 'alice signing in after the restart', (await uiSignIn(s.base, TOKENS.alice)).status === 303, false);
  }, { timeout: 60_000 });
});
