// The live view's server side through the BUILT server (dist/bin.js --http) over real HTTP, on
// the fake desktop: browser sign-in (POST /ui/login, a sign-in id in the cookie) and the origin/CSRF rules, principal scoping, take-over (an
// MCP client's input tools answer HUMAN_CONTROL while vm_screenshot works), the person's input,
// the hand-back note delivered once, recordings (agent and human steps, redaction, screenshots,
// the self-contained HTML form), the retention sweep, and lease ids that try to leave the
// recordings folder.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { until } from '@vmhub/test-kit';
import { CAPTURE_SETTLE_MS, MAX_IMAGE_STEPS, Recordings } from '../src/live/recorder.ts';
import { LeaseSession } from '../src/sessions/lease-session.ts';
import { sandbox, startHttp, uiSignIn, type HttpServer, type Sandbox } from './harness.ts';

const TOKEN = 'live-token-3c9e1a';
const OTHER = 'live-other-8b2d55';
const ENV = { VMHUB_HTTP_TOKEN: TOKEN, VMHUB_TOKEN_OTHER: OTHER };
const TOKENS = [{ principal: 'other', token_env: 'VMHUB_TOKEN_OTHER' }];

const start = (box: Sandbox, env: Record<string, string> = ENV): Promise<HttpServer> => startHttp(box, env);

let box: Sandbox;
let server: HttpServer;
let agent: Client;
let lease = '';

const bearer = (token = TOKEN) => ({ Authorization: `Bearer ${token}` });
const api = (path: string, init: RequestInit = {}) => fetch(`${server.base}${path}`, { redirect: 'manual', ...init, headers: { ...bearer(), ...(init.headers as Record<string, string> | undefined) } });
const post = (path: string, body: unknown = {}, headers: Record<string, string> = {}) => api(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } });
const call = async (name: string, args: Record<string, unknown>) => await agent.callTool({ name, arguments: { lease_id: lease, ...args } }) as any;
const desktop = async () => (await call('vm_dispatch', { verb: 'desktop_state' })).structuredContent.result as { typed: string; clicks: { x: number; y: number }[] };
const recording = async () => (await (await api(`/api/leases/${lease}/recording`)).json()) as { lease: any; steps: any[] };

before(async () => {
  box = sandbox({ http: { tokens: TOKENS } });
  server = await start(box);
  agent = new Client({ name: 'live-agent', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: bearer() } }));
  lease = ((await agent.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-desktop' } })).structuredContent as any).lease_id;
  await until(async () => ((await agent.callTool({ name: 'vm_lease_status', arguments: { lease_id: lease, wait_seconds: 2 } })).structuredContent as any).status === 'ready', 'the lease is ready', 20_000);
});
after(async () => { await agent?.close(); await server?.stop(); box?.cleanup(); });

describe('live view: sign-in, origins and scoping', () => {
  it('signs in by a POST to /ui/login (303, HttpOnly SameSite=Strict sign-in id), refuses a wrong token and a missing one', async () => {
    const link = await fetch(`${server.base}/ui/?token=${TOKEN}`, { redirect: 'manual' });
    assert.equal(link.status, 200, 'the older link opens the sign-in page');
    assert.equal(link.headers.get('set-cookie'), null, 'a GET never signs in');
    assert.equal(link.headers.get('referrer-policy'), 'strict-origin', 'the ?token= address is never sent on (its origin is, for the POST)');
    assert.match(await link.text(), /action="\/ui\/login"/);
    const signIn = await uiSignIn(server.base, TOKEN);
    assert.equal(signIn.status, 303);
    assert.equal(signIn.location, '/ui/');
    const cookie = signIn.setCookies.join('');
    assert.match(cookie, /^vmhub_session=[A-Za-z0-9_-]{43};/);
    assert.ok(!cookie.includes(TOKEN), 'the cookie holds a sign-in id, not the token');
    for (const attr of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=43200']) assert.ok(cookie.split('; ').includes(attr), `${attr} in ${cookie}`);
    const page = await fetch(`${server.base}/ui/`, { headers: { Cookie: signIn.cookie } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.equal((await fetch(`${server.base}/ui/leases/${lease}`, { headers: { Cookie: signIn.cookie } })).status, 200);
    assert.equal((await fetch(`${server.base}/ui/app.css`, { headers: { Cookie: signIn.cookie } })).status, 200);
    const apiByCookie = await fetch(`${server.base}/api/leases`, { headers: { Cookie: signIn.cookie } });
    assert.equal(apiByCookie.status, 200, 'the cookie signs in /api/ too');

    const wrong = await uiSignIn(server.base, 'nope');
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.setCookies, []);
    assert.match(wrong.text, /not one this vmhub server accepts/);
    const none = await fetch(`${server.base}/ui/`);
    assert.equal(none.status, 401);
    assert.match(await none.text(), /action="\/ui\/login"/);
    const stale = await fetch(`${server.base}/ui/`, { headers: { Cookie: 'vmhub_session=revoked-one' } });
    assert.equal(stale.status, 401);
    assert.match(await stale.text(), /Your sign-in ended/);

    const noAuth = await fetch(`${server.base}/api/leases`);
    assert.equal(noAuth.status, 401);
    assert.equal(((await noAuth.json()) as any).error.code, 'UNAUTHORIZED');
    assert.equal((await fetch(`${server.base}/api/leases`, { headers: bearer('wrong') })).status, 401);
  });

  it('refuses a foreign Origin (403) and a cookie POST without Origin (CSRF 403); a bearer POST without Origin works', async () => {
    assert.equal((await api('/api/leases', { headers: { Origin: 'http://evil.example' } })).status, 403);
    const signedIn = (await uiSignIn(server.base, TOKEN)).cookie;
    assert.equal((await fetch(`${server.base}/ui/`, { headers: { Cookie: signedIn, Origin: 'http://evil.example' } })).status, 403);
    const cookie = { Cookie: signedIn, 'Content-Type': 'application/json' };
    const csrf = await fetch(`${server.base}/api/leases/${lease}/renew`, { method: 'POST', body: '{}', headers: cookie });
    assert.equal(csrf.status, 403);
    assert.match(((await csrf.json()) as any).error.message, /Origin/);
    const ownOrigin = await fetch(`${server.base}/api/leases/${lease}/renew`, { method: 'POST', body: '{}', headers: { ...cookie, Origin: server.base } });
    assert.equal(ownOrigin.status, 200, 'the server\'s own origin is allowed');
    const foreign = await fetch(`${server.base}/api/leases/${lease}/renew`, { method: 'POST', body: '{}', headers: { ...cookie, Origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403);
    const script = await post(`/api/leases/${lease}/renew`, { ttl_seconds: 900 });
    assert.equal(script.status, 200);
    assert.equal(((await script.json()) as any).lease_id, lease);
  });

  it('another principal\'s lease is 404 everywhere and missing from its list', async () => {
    const other = bearer(OTHER);
    const list = (await (await api('/api/leases', { headers: other })).json()) as any;
    assert.deepEqual(list.leases.map((l: any) => l.lease_id), []);
    for (const path of ['', '/screen', '/events', '/recording', '/recording?format=html']) {
      const r = await api(`/api/leases/${lease}${path}`, { headers: other });
      assert.equal(r.status, 404, path);
      assert.equal(((await r.json()) as any).error.code, 'NOT_FOUND');
    }
    for (const action of ['renew', 'release', 'takeover', 'handback', 'input']) {
      assert.equal((await post(`/api/leases/${lease}/${action}`, action === 'input' ? { type: 'type', text: 'x' } : {}, other)).status, 404, action);
    }
    assert.equal((await api(`/api/leases/${randomUUID()}`)).status, 404, 'an unknown id is the same 404');
  });
});

describe('live view: leases, screen, events', () => {
  it('lists the lease with its control, and answers its detail, screen and events', async () => {
    const list = (await (await api('/api/leases')).json()) as any;
    const row = list.leases.find((l: any) => l.lease_id === lease);
    assert.equal(row.status, 'ready');
    assert.equal(row.template, 'fake-desktop');
    assert.equal(row.control, 'agent');
    const detail = (await (await api(`/api/leases/${lease}`)).json()) as any;
    assert.equal(detail.control, 'agent');
    assert.equal(detail.control_since, undefined);

    const screen = await api(`/api/leases/${lease}/screen?max_width=320`);
    assert.equal(screen.status, 200);
    assert.equal(screen.headers.get('content-type'), 'image/png');
    assert.equal(screen.headers.get('cache-control'), 'no-store');
    const png = Buffer.from(await screen.arrayBuffer());
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    const width = png.readUInt32BE(16);
    assert.ok(width <= 320, `image ${width} px wide`);
    const screenWidth = Number(screen.headers.get('x-screen-width'));
    assert.ok(screenWidth > 320 && Number(screen.headers.get('x-screen-height')) > 0);
    assert.ok(Math.abs(Number(screen.headers.get('x-image-scale')) - width / screenWidth) < 0.01);
    const jpeg = await api(`/api/leases/${lease}/screen?format=jpeg`);
    assert.equal(jpeg.headers.get('content-type'), 'image/jpeg');
    assert.equal((await api(`/api/leases/${lease}/screen?max_width=abc`)).status, 400);

    // ?since=<X-Frame>: a screen that has not changed answers 204 with no image; a changed one the new image.
    const tag = screen.headers.get('x-frame');
    assert.match(String(tag), /^\d+\.png\.320$/);
    const same = await api(`/api/leases/${lease}/screen?max_width=320&since=${tag}`);
    assert.equal(same.status, 204);
    assert.equal((await same.arrayBuffer()).byteLength, 0, 'no image for an unchanged screen');
    assert.equal(same.headers.get('x-frame'), tag);
    assert.equal((await api(`/api/leases/${lease}/screen?max_width=640&since=${tag}`)).status, 200, 'another size is another image');
    assert.equal((await call('vm_launch', { app: 'editor' })).isError, undefined, 'a window opens: the screen changes');
    const changed = await api(`/api/leases/${lease}/screen?max_width=320&since=${tag}`);
    assert.equal(changed.status, 200);
    assert.equal(Buffer.from(await changed.arrayBuffer()).subarray(1, 4).toString(), 'PNG');
    assert.notEqual(changed.headers.get('x-frame'), tag, 'a new generation');
    assert.equal((await api(`/api/leases/${lease}/screen?max_width=320&since=${changed.headers.get('x-frame')}`)).status, 204);

    const events = (await (await api(`/api/leases/${lease}/events`)).json()) as any;
    assert.ok(events.events.some((e: any) => e.kind === 'lease.created' && typeof e.at === 'string' && !Number.isNaN(Date.parse(e.at))), JSON.stringify(events.events.map((e: any) => e.kind)));
    assert.ok(events.events.some((e: any) => e.kind === 'lease.renewed'));
  });
});

describe('live view: take-over, input, hand-back, recording', () => {
  const note = 'I dismissed the update dialog; carry on from the editor.';
  const secret = 'top-secret-file-body';
  const long = 'y'.repeat(300);

  it('records the agent\'s calls, redacted, with the screenshots it got and frames after input', async () => {
    assert.equal((await call('vm_screenshot', {})).isError, undefined);
    assert.equal((await call('vm_type', { text: long })).isError, undefined);
    assert.equal((await call('vm_put_file', { path: '/tmp/notes.txt', content: secret })).isError, undefined);
    const { steps } = await recording();
    const shot = steps.find((s) => s.tool === 'vm_screenshot');
    assert.equal(shot.actor, 'agent');
    assert.equal(shot.outcome, 'ok');
    assert.match(shot.screenshot, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    assert.ok(typeof shot.duration_ms === 'number' && !Number.isNaN(Date.parse(shot.at)));
    assert.deepEqual(shot.args, {}, 'lease_id is dropped');
    const typed = steps.find((s) => s.tool === 'vm_type');
    assert.equal(typed.args.text, `${'y'.repeat(200)}…(300 chars)`);
    assert.match(typed.screenshot, /^data:image\/png;base64,/, 'a frame after the input action');
    const put = steps.find((s) => s.tool === 'vm_put_file');
    assert.equal(put.args.content, '[redacted]');
    assert.equal(put.args.path, '/tmp/notes.txt');
    assert.equal(put.screenshot, undefined, 'no frame after a file write');
    assert.ok(!JSON.stringify(steps).includes(secret));
    assert.deepEqual(steps.map((s) => s.seq), steps.map((_, i) => i + 1));
  });

  it('input needs control: 409 NOT_IN_CONTROL before take-over', async () => {
    const r = await post(`/api/leases/${lease}/input`, { type: 'type', text: 'too early' });
    assert.equal(r.status, 409);
    assert.equal(((await r.json()) as any).error.code, 'NOT_IN_CONTROL');
  });

  it('take-over blocks the agent\'s input tools with HUMAN_CONTROL (retryable) while vm_screenshot works', async () => {
    const before = await desktop();
    const r = await post(`/api/leases/${lease}/takeover`);
    assert.equal(r.status, 200);
    const taken = (await r.json()) as any;
    assert.equal(taken.control, 'human');
    assert.ok(!Number.isNaN(Date.parse(taken.control_since)));
    const again = (await (await post(`/api/leases/${lease}/takeover`)).json()) as any;
    assert.equal(again.control_since, taken.control_since, 'take-over is idempotent');

    for (const [tool, args] of [['vm_click', { x: 10, y: 10 }], ['vm_type', { text: 'agent typing' }], ['vm_key', { keys: 'Return' }], ['vm_dispatch', { verb: 'desktop_state' }], ['vm_batch', { actions: [{ action: 'type', text: 'b' }] }]] as const) {
      const blocked = await call(tool, args);
      assert.equal(blocked.isError, true, tool);
      assert.equal(blocked.structuredContent.code, 'HUMAN_CONTROL', tool);
      assert.equal(blocked.structuredContent.retryable, true);
      assert.match(blocked.structuredContent.hint, /Wait for hand-back: call vm_screenshot/);
    }
    const shot = await call('vm_screenshot', {});
    assert.equal(shot.isError, undefined);
    assert.ok(shot.content.some((c: any) => c.type === 'image'));
    assert.equal(shot.structuredContent.human_note, undefined);
    const detail = (await (await api(`/api/leases/${lease}`)).json()) as any;
    assert.equal(detail.control, 'human');
    assert.equal(detail.control_since, taken.control_since);
    assert.equal(((await (await api('/api/leases')).json()) as any).leases.find((l: any) => l.lease_id === lease).control, 'human');
    assert.ok(before.typed.endsWith('y'.repeat(300)));
  });

  it('the person\'s input reaches the machine; bad input is refused before anything acts', async () => {
    const typed = await post(`/api/leases/${lease}/input`, { type: 'type', text: 'hello from the person' });
    assert.equal(typed.status, 200);
    assert.deepEqual(await typed.json(), { ok: true });
    assert.equal((await post(`/api/leases/${lease}/input`, { type: 'click', x: 40, y: 50 })).status, 200);
    assert.equal((await post(`/api/leases/${lease}/input`, { type: 'key', keys: 'ctrl+a' })).status, 200);
    assert.equal((await post(`/api/leases/${lease}/input`, { type: 'scroll', x: 40, y: 50, direction: 'down' })).status, 200);
    assert.equal((await post(`/api/leases/${lease}/input`, { type: 'drag', from: { x: 40, y: 50 }, to: { x: 60, y: 70 } })).status, 200);
    for (const bad of [{ type: 'click', x: 100000, y: 5 }, { type: 'click', x: 5 }, { type: 'teleport' }, { type: 'type', text: '' }, { type: 'type', text: 'x', extra: 1 }]) {
      const r = await post(`/api/leases/${lease}/input`, bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(((await r.json()) as any).error.code, 'INVALID_REQUEST');
    }
  });

  it('hand-back returns control; the note arrives in the next result once', async () => {
    assert.equal((await post(`/api/leases/${lease}/handback`, { note: 'x'.repeat(2001) })).status, 400, 'a note over 2000 characters');
    const r = await post(`/api/leases/${lease}/handback`, { note });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { control: 'agent' });
    assert.equal(((await (await api(`/api/leases/${lease}`)).json()) as any).note, note, 'pending until the agent gets it');
    const first = await call('vm_screenshot', {});
    assert.equal(first.structuredContent.human_note, note);
    assert.ok(first.content.some((c: any) => c.type === 'text' && c.text === `Note from the person who had control: ${note}`));
    const second = await call('vm_screenshot', {});
    assert.equal(second.structuredContent.human_note, undefined);
    assert.ok(!second.content.some((c: any) => c.type === 'text' && c.text.includes(note)));
    const state = await desktop();
    assert.ok(state.typed.endsWith('hello from the person'), state.typed.slice(-40));
    assert.ok(state.clicks.some((c) => c.x === 40 && c.y === 50));
    assert.equal((await call('vm_click', { x: 10, y: 10, coordinate_space: 'screen' })).isError, undefined, 'the agent drives again');
    const detail = (await (await api(`/api/leases/${lease}`)).json()) as any;
    assert.equal(detail.control, 'agent');
    assert.equal(detail.note, undefined);
  });

  it('the recording has the person\'s turns, the blocked calls, and an HTML form that needs nothing else', async () => {
    const { lease: view, steps } = await recording();
    assert.equal(view.lease_id, lease);
    const human = steps.filter((s) => s.actor === 'human');
    assert.deepEqual(human.map((s) => s.tool).filter((t, i, a) => a.indexOf(t) === i), ['takeover', 'input', 'handback']);
    assert.equal(human.filter((s) => s.tool === 'takeover').length, 1, 'the idempotent second take-over is no new step');
    const input = human.find((s) => s.tool === 'input' && s.args.type === 'type');
    assert.equal(input.args.text, 'hello from the person');
    assert.match(input.screenshot, /^data:image\/png;base64,/, 'a frame after the person\'s input');
    assert.equal(human.find((s) => s.tool === 'handback').note, note);
    const blocked = steps.find((s) => s.tool === 'vm_click' && s.outcome === 'error');
    assert.equal(blocked.code, 'HUMAN_CONTROL');
    assert.equal(steps.find((s) => s.actor === 'agent' && s.note === note)?.tool, 'vm_screenshot', 'the step that delivered the note says so');

    // ?since: only the steps after that seq, so a polling timeline fetches each image once
    const mid = steps[Math.floor(steps.length / 2)].seq;
    const after = (await (await api(`/api/leases/${lease}/recording?since=${mid}`)).json()) as { steps: any[] };
    assert.deepEqual(after.steps.map((s) => s.seq), steps.filter((s) => s.seq > mid).map((s) => s.seq));
    assert.equal((await api(`/api/leases/${lease}/recording?since=x`)).status, 400);

    const html = await api(`/api/leases/${lease}/recording?format=html`);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(html.headers.get('content-disposition'), `attachment; filename="vmhub-${lease.slice(0, 8)}-recording.html"`);
    const text = await html.text();
    assert.ok(/<img [^>]*src="data:image\/png;base64,/.test(text));
    assert.ok(!/<script|<link|src="http|href="http|url\(/i.test(text), 'no script and nothing fetched from elsewhere');
    assert.ok(text.includes('hello from the person') && text.includes('I dismissed the update dialog'));
    assert.ok(text.includes('data-tool="takeover"') && text.includes('data-tool="vm_screenshot"'));
  });

  it('paste through the adapter, pointer marks without a machine pointer, copy out only with a get_clipboard verb, results in the steps', async () => {
    assert.equal(((await (await api(`/api/leases/${lease}/clipboard`)).json()) as any).error.code, 'NOT_IN_CONTROL', 'copy out needs control too');
    assert.equal((await post(`/api/leases/${lease}/takeover`)).status, 200);
    const pasted = 'pasted by the person';
    assert.equal((await post(`/api/leases/${lease}/input`, { type: 'paste', text: pasted })).status, 200);
    assert.equal((await post(`/api/leases/${lease}/input`, { type: 'paste', text: '' })).status, 400);
    assert.equal((await post(`/api/leases/${lease}/input`, { type: 'click', x: 33, y: 44 })).status, 200);
    // The fake adapter has no mouse_location verb: the last point moved to, and the agent's last click (10, 10 after hand-back).
    const marks = (await (await api(`/api/leases/${lease}/pointer`)).json()) as any;
    assert.deepEqual([marks.pointer.x, marks.pointer.y, marks.pointer.source], [33, 44, 'human']);
    assert.deepEqual([marks.agent_click.x, marks.agent_click.y, marks.agent_click.actor], [10, 10, 'agent']);
    const copy = await api(`/api/leases/${lease}/clipboard`);
    assert.equal(copy.status, 409);
    assert.equal(((await copy.json()) as any).error.code, 'CAPABILITY_UNAVAILABLE', 'no get_clipboard verb on the fake adapter');
    assert.equal((await post(`/api/leases/${lease}/handback`)).status, 200);
    assert.ok((await desktop()).typed.endsWith(pasted), 'the paste reached the machine');

    const { steps } = await recording();
    const paste = steps.find((s) => s.actor === 'human' && s.args?.type === 'paste');
    assert.deepEqual(paste?.args, { type: 'paste', chars: pasted.length }, 'the pasted text is not kept');
    assert.deepEqual(steps.find((s) => s.tool === 'vm_click' && s.outcome === 'ok')?.result, { screen_x: 10, screen_y: 10 });
    const blocked = steps.find((s) => s.tool === 'vm_click' && s.outcome === 'error');
    assert.equal(blocked?.result?.code, 'HUMAN_CONTROL');
    assert.match(blocked?.result?.message ?? '', /took over/);
    assert.equal(steps.find((s) => s.tool === 'vm_put_file')?.result?.content, undefined);
    assert.ok(!JSON.stringify(steps).includes(secret));
  });

  it('a lease id in the path never reaches outside the recordings folder', async () => {
    for (const id of ['..%2F..%2Fconfig.json', '..', 'not-a-lease', `${lease}x`, lease.toUpperCase(), '%2e%2e']) {
      const r = await api(`/api/leases/${id}/recording`);
      assert.ok([400, 404].includes(r.status), `${id}: ${r.status}`);
    }
    // A folder for an id nobody owns is never read, and a step naming a file outside its folder
    // gets no image.
    const root = join(box.dir, 'recordings');
    const planted = randomUUID();
    mkdirSync(join(root, planted));
    writeFileSync(join(root, planted, 'steps.jsonl'), `${JSON.stringify({ seq: 1, at: new Date().toISOString(), actor: 'agent', tool: 'planted', outcome: 'ok', duration_ms: 0, args: {} })}\n`);
    assert.equal((await api(`/api/leases/${planted}/recording`)).status, 404);
    await recording();
    appendFileSync(join(root, lease, 'steps.jsonl'), `${JSON.stringify({ seq: 9999, at: new Date().toISOString(), actor: 'agent', tool: 'escape', outcome: 'ok', duration_ms: 0, args: {}, screenshot: '../../config.json' })}\n`);
    const escape = (await recording()).steps.find((s) => s.tool === 'escape');
    assert.equal(escape.screenshot, undefined);
  });

  it('a released lease\'s control is gone; take-over then answers 409', async () => {
    assert.equal((await post(`/api/leases/${lease}/takeover`)).status, 200);
    const released = await post(`/api/leases/${lease}/release`);
    assert.equal(released.status, 200);
    assert.equal(((await released.json()) as any).status, 'released');
    const detail = (await (await api(`/api/leases/${lease}`)).json()) as any;
    assert.equal(detail.control, 'agent');
    assert.equal((await post(`/api/leases/${lease}/takeover`)).status, 409);
    assert.equal((await api(`/api/leases/${lease}/screen`)).status, 409);
    const list = (await (await api('/api/leases')).json()) as any;
    assert.equal(list.leases.find((l: any) => l.lease_id === lease)?.status, 'released', 'ended leases of the last hour stay listed');
    assert.ok((await recording()).steps.length > 0, 'the recording outlives the lease');
  });
});

describe('live view: without a token (loopback opt-out)', () => {
  it('answers loopback host names only (DNS rebinding), as the principal anonymous', async () => {
    const own = sandbox();
    const running = await start(own, { VMHUB_HTTP_ALLOW_NO_AUTH: '1' });
    const get = (host: string) => new Promise<number>((resolve, reject) => {
      const u = new URL(`${running.base}/api/leases`);
      request({ host: u.hostname, port: u.port, path: u.pathname, headers: { Host: host } }, (res) => { res.resume(); resolve(res.statusCode!); }).on('error', reject).end();
    });
    try {
      const port = new URL(running.base).port;
      assert.equal(await get(`127.0.0.1:${port}`), 200);
      assert.equal(await get(`localhost:${port}`), 200);
      assert.equal(await get(`evil.example:${port}`), 403);
      assert.equal(await get(`127.0.0.1.evil.example:${port}`), 403);
    } finally {
      await running.stop();
      own.cleanup();
    }
  });
});

describe('live view: recordings retention', () => {
  it('deletes lease folders older than recordings.keep_hours at start, and nothing else', async () => {
    const own = sandbox({ recordings: { keep_hours: 2 } });
    try {
      const root = join(own.dir, 'recordings');
      const old = randomUUID();
      const fresh = randomUUID();
      for (const id of [old, fresh, 'not-a-lease']) {
        mkdirSync(join(root, id), { recursive: true });
        writeFileSync(join(root, id, 'steps.jsonl'), '');
      }
      const past = new Date(Date.now() - 3 * 3600 * 1000);
      for (const p of [join(root, old, 'steps.jsonl'), join(root, old), join(root, 'not-a-lease', 'steps.jsonl'), join(root, 'not-a-lease')]) utimesSync(p, past, past);
      const running = await start(own);
      try {
        assert.equal((await fetch(`${running.base}/api/leases`, { headers: bearer() })).status, 200);
        await until(() => !existsSync(join(root, old)), 'the old folder is deleted', 20_000);
        assert.deepEqual(readdirSync(root).sort(), [fresh, 'not-a-lease'].sort());
      } finally {
        await running.stop();
      }
    } finally {
      own.cleanup();
    }
  });
});

/** A real lease session (no provider, no adapter): the recording is its state. */
const leaseSession = (id: string) => new LeaseSession(id, { identity: `vmhub-t-${id}`, external_id: 'e' }, { id: 't', provider: 'p', adapter: 'a', os: 'linux', golden: 'g' }, undefined, undefined);

describe('live view: recording bounds (in-process)', () => {
  it('input steps share queued captures (one in flight per lease) and images stop past the step limit, said in a step', async () => {
    const own = sandbox();
    const id = randomUUID();
    let inFlight = 0;
    let most = 0;
    let captures = 0;
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const session = leaseSession(id);
    const recordings = new Recordings({
      enabled: true, keepHours: 1, root: async () => join(own.dir, 'recordings'), session: async () => session,
      capture: async () => {
        captures++;
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return png;
      },
    });
    try {
      const total = MAX_IMAGE_STEPS + 5;
      for (let i = 0; i < total; i++) {
        recordings.agent({ at: new Date().toISOString(), tool: 'vm_click', lease_id: id, outcome: 'ok', duration_ms: 1, args: { lease_id: id, x: i, y: 1, password: 'hunter2' }, result: { content: [{ type: 'text', text: '{}' }] } }, 'alice');
        if (i % 400 === 0) await new Promise((r) => setImmediate(r));
      }
      const steps = await recordings.read(id);
      assert.equal(most, 1, 'never two captures at once for one lease');
      assert.ok(captures < total, `${captures} captures for ${total} input steps`);
      const clicks = steps.filter((s) => s.tool === 'vm_click');
      assert.equal(clicks.length, total);
      assert.deepEqual(clicks.map((s) => s.args.x), [...Array(total).keys()], 'in call order');
      assert.ok(clicks.every((s) => s.args.password === '[redacted]' && !('lease_id' in s.args)));
      assert.ok(steps.filter((s) => s.screenshot).every((s) => s.seq <= MAX_IMAGE_STEPS));
      assert.ok(steps.filter((s) => s.screenshot).length >= MAX_IMAGE_STEPS - 1);
      const said = steps.filter((s) => s.tool === 'recording');
      assert.equal(said.length, 1);
      assert.match(said[0]!.note!, /no more images/);
      assert.equal(readdirSync(join(own.dir, 'recordings', id)).filter((f) => f.endsWith('.png')).length <= MAX_IMAGE_STEPS, true);
    } finally {
      await recordings.flush();
      own.cleanup();
    }
  });

  it('the frame after an input: the agent\'s own whole screenshot when it comes first (one file for both), else a capture once the input settled; a frame equal to the last names its file', async () => {
    const own = sandbox();
    const id = randomUUID();
    const captured: number[] = [];
    const capturePng = Buffer.from('89504e470d0a1a0a01', 'hex');
    const agentPng = Buffer.from('89504e470d0a1a0a02', 'hex');
    const session = leaseSession(id);
    const recordings = new Recordings({
      enabled: true, keepHours: 1, root: async () => join(own.dir, 'recordings'), session: async () => session,
      capture: async () => { captured.push(Date.now()); return capturePng; },
    });
    const call = (tool: string, args: Record<string, unknown> = {}, image?: Buffer, at = new Date()) => recordings.agent({
      at: at.toISOString(), tool, lease_id: id, outcome: 'ok', duration_ms: 1, args: { lease_id: id, ...args },
      result: { content: image ? [{ type: 'image', data: image.toString('base64'), mimeType: 'image/png' }] : [{ type: 'text', text: '{}' }] },
    }, 'alice');
    const tick = () => new Promise((r) => setTimeout(r, 5));
    try {
      // Act, then look: the screenshot is the click's frame; nothing is captured.
      call('vm_click', { x: 1, y: 1 });
      await tick();
      call('vm_screenshot', {}, agentPng);
      await tick();
      let steps = await recordings.read(id);
      assert.deepEqual(captured, []);
      assert.deepEqual(steps.map((s) => s.tool), ['vm_click', 'vm_screenshot']);
      assert.equal(steps[0]!.screenshot, steps[1]!.screenshot, 'the same image for both');
      assert.equal(Buffer.from(steps[0]!.screenshot!.split(',')[1]!, 'base64').toString('hex'), agentPng.toString('hex'));
      assert.equal(readdirSync(join(own.dir, 'recordings', id)).filter((f) => f.endsWith('.png')).length, 1, 'written once');

      // A changed box is not a frame of the screen: the input gets its own capture, after it settled.
      const typedAt = Date.now();
      call('vm_type', { text: 'x' });
      await tick();
      call('vm_screenshot', { changed_only: true }, agentPng);
      await tick();
      steps = await recordings.read(id);
      assert.equal(captured.length, 1);
      assert.ok(captured[0]! - typedAt >= CAPTURE_SETTLE_MS - 5, `captured ${captured[0]! - typedAt} ms after the input`);
      const typed = steps.find((s) => s.tool === 'vm_type')!;
      assert.equal(Buffer.from(typed.screenshot!.split(',')[1]!, 'base64').toString('hex'), capturePng.toString('hex'));

      // Nothing moved between two frames: the second names the first one's file.
      const pngs = () => readdirSync(join(own.dir, 'recordings', id)).filter((f) => f.endsWith('.png')).length;
      call('vm_key', { keys: 'shift' });
      await tick();
      await recordings.read(id);
      const before = pngs();
      call('vm_key', { keys: 'shift' });
      await tick();
      steps = await recordings.read(id);
      assert.equal(captured.length, 3);
      const keys = steps.filter((s) => s.tool === 'vm_key');
      assert.equal(keys.length, 2);
      assert.ok(keys[0]!.screenshot && keys[1]!.screenshot === keys[0]!.screenshot);
      assert.equal(pngs(), before, 'no second file for the same frame');

      // A screenshot begun before the input ended may show the screen before it: not its frame.
      call('vm_click', { x: 2, y: 2 });
      await tick();
      call('vm_screenshot', {}, agentPng, new Date(Date.now() - 1000));
      await tick();
      steps = await recordings.read(id);
      assert.equal(captured.length, 4, 'the click got its own capture');
    } finally {
      await recordings.flush();
      own.cleanup();
    }
  });

  it('the recording is state of the lease session: its end waits for the queued steps; steps after it go to a recording of their own that goes on numbering', async () => {
    const own = sandbox();
    const id = randomUUID();
    let session: LeaseSession | undefined = leaseSession(id);
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let captures = 0;
    const recordings = new Recordings({
      enabled: true, keepHours: 1, root: async () => join(own.dir, 'recordings'), session: async () => session,
      capture: async () => { captures++; await held; return Buffer.from('89504e470d0a1a0a', 'hex'); },
    });
    const click = (x: number) => recordings.agent({ at: new Date().toISOString(), tool: 'vm_click', lease_id: id, outcome: 'ok', duration_ms: 1, args: { x, y: 1 }, result: { content: [{ type: 'text', text: '{}' }] } }, 'alice');
    try {
      click(1);
      await until(() => captures === 1, 'the click\'s frame capture to start');
      // The lease ends while its step waits for its frame: dispose waits for it to be written.
      const ended = session.dispose('released');
      session = undefined;
      let done = false;
      void ended.then(() => { done = true; });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(done, false, 'dispose waits for the queued step');
      release();
      await ended;
      const written = await recordings.read(id);
      assert.deepEqual(written.map((s) => [s.seq, s.tool, Boolean(s.screenshot)]), [[1, 'vm_click', true]]);
      // No session here now: an agent's call records nothing; a person's step goes on from the folder's numbering.
      click(2);
      recordings.human(id, 'alice', 'handback', {}, { note: 'done' });
      await until(async () => (await recordings.read(id)).length === 2, 'the hand-back step to be written');
      const steps = await recordings.read(id);
      assert.deepEqual(steps.map((s) => [s.seq, s.tool]), [[1, 'vm_click'], [2, 'handback']]);
    } finally {
      release();
      await recordings.flush();
      own.cleanup();
    }
  });
});
