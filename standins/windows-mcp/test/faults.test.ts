// Every fault, as the SDK client (and a raw HTTP client) meets it.
import { deepStrictEqual, equal, match, ok, rejects } from 'node:assert/strict';
import { test } from 'node:test';
import { allowedHostsFor, QUARANTINE_MESSAGE, startStandin } from '../src/index.ts';
import { request } from 'node:http';
import { connectTo, KEY, open } from './client.ts';

/** fetch() will not send a chosen Host header; node:http will. */
function post(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp/', method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

const is401 = (e: unknown) => (e as { code?: number }).code === 401;

test('401: no key and a wrong key, with the bodies AuthKeyMiddleware sends; the SDK client fails to connect', async () => {
  const s = await startStandin({ authKey: KEY });
  try {
    const none = await fetch(s.url, { method: 'POST', body: '{}' });
    equal(none.status, 401);
    equal(none.headers.get('www-authenticate'), 'Bearer');
    deepStrictEqual(await none.json(), { error: 'Missing or invalid Authorization header. Expected: Bearer <token>' });
    const wrong = await fetch(s.url, { method: 'POST', body: '{}', headers: { authorization: 'Bearer nope' } });
    equal(wrong.status, 401);
    deepStrictEqual(await wrong.json(), { error: 'Invalid authentication token' });
    await rejects(connectTo(s, ''), is401);
    await rejects(connectTo(s, 'nope'), is401);
    const ok1 = await connectTo(s);
    await ok1.close();
    s.faults.unauthorized = true;
    await rejects(connectTo(s), is401);
  } finally {
    await s.close();
  }
});

test('Host check: as Windows-MCP derives it from the bind address (Starlette drops the port at the first colon)', async () => {
  deepStrictEqual(allowedHostsFor('127.0.0.1'), ['localhost', '127.0.0.1', '[::1]']);
  deepStrictEqual(allowedHostsFor('localhost'), ['localhost', '127.0.0.1', '[::1]']);
  deepStrictEqual(allowedHostsFor('192.168.56.10'), ['192.168.56.10']);
  equal(allowedHostsFor('0.0.0.0'), null);
  equal(allowedHostsFor('127.0.0.1', true), null);
  const s = await startStandin({ authKey: KEY });
  const at = (host: string) => post(s.port, host);
  try {
    for (const h of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, 'localhost']) equal((await at(h)).status, 401, h); // passes the Host check, then wants the key
    for (const h of ['evil.example', `10.0.0.5:${s.port}`, `[::1]:${s.port}`]) {
      const r = await at(h);
      equal(r.status, 400, h);
      equal(r.body, 'Invalid host header');
    }
    s.faults.allowedHosts = ['vm.internal'];
    equal((await at(`127.0.0.1:${s.port}`)).status, 400);
    equal((await at(`vm.internal:${s.port}`)).status, 401);
  } finally {
    await s.close();
  }
  const wide = await startStandin({ authKey: KEY, host: '0.0.0.0' });
  try {
    equal((await post(wide.port, 'anything.example')).status, 401);
  } finally {
    await wide.close();
  }
  await rejects(startStandin({ host: '0.0.0.0' }), /Refusing to bind HTTP transport to '0.0.0.0' without authentication/);
});

test('quarantine: 0.8.2 answers a text result without an image; 0.5.8 a tool error; a count runs down', async () => {
  const c = await open({ faults: { quarantine: 2 } });
  try {
    const shot = await c.call('Screenshot');
    ok(!shot.isError);
    deepStrictEqual(shot.content, [{ type: 'text', text: `Error capturing screenshot: ${QUARANTINE_MESSAGE}. Please try again.` }]);
    deepStrictEqual((await c.call('Snapshot', { use_vision: true })).content, [{ type: 'text', text: `Error capturing desktop state: ${QUARANTINE_MESSAGE}. Please try again.` }]);
    equal((await c.call('Screenshot')).content[1]?.type, 'image');
  } finally {
    await c.close();
  }
  const old = await open({ version: '0.5.8', faults: { quarantine: true } });
  try {
    const r = await old.call('State-Tool', { use_vision: true });
    ok(r.isError);
    deepStrictEqual(r.content, [{ type: 'text', text: `Error calling tool 'State-Tool': ${QUARANTINE_MESSAGE}` }]);
    ok(!(await old.call('State-Tool', {})).isError); // no screenshot, no quarantine
  } finally {
    await old.close();
  }
});

test('"Desktop state is empty": a label before any Snapshot (real), and any input while snapshotFirst is on', async () => {
  const c = await open();
  try {
    deepStrictEqual((await c.call('Click', { label: 0 })).content, [{ type: 'text', text: "Error calling tool 'Click': Desktop state is empty. Please call Snapshot first." }]);
    ok(!(await c.call('Click', { loc: [5, 5] })).isError);
    c.s.faults.snapshotFirst = true;
    for (const [tool, args] of [['Click', { loc: [5, 5] }], ['Type', { text: 'x', loc: [5, 5] }], ['Scroll', {}], ['Move', { loc: [1, 1] }]] as const) {
      const r = await c.call(tool, args);
      ok(r.isError, tool);
      match(JSON.stringify(r.content), /Desktop state is empty\. Please call Snapshot first\./);
    }
    await c.call('Snapshot');
    ok(!(await c.call('Click', { loc: [5, 5] })).isError);
  } finally {
    await c.close();
  }
});

test('slow calls wait slowMs, and a cancelled call stops waiting (the SDK sends notifications/cancelled)', async () => {
  const c = await open({ faults: { slowMs: { Click: 60_000 } } });
  try {
    const ac = new AbortController();
    const pending = c.call('Click', { loc: [10, 10] }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    await rejects(pending, /abort/i);
    equal(c.s.state.clicks.length, 0); // the click never happened
    c.s.faults.slowMs = 50;
    const t0 = Date.now();
    await c.call('Click', { loc: [10, 10] });
    ok(Date.now() - t0 >= 45);
    equal(c.s.state.clicks.length, 1);
    // the client's own timeout: the SDK's request timeout surfaces as an McpError (-32001)
    c.s.faults.slowMs = 5_000;
    await rejects(c.client.callTool({ name: 'Shortcut', arguments: { shortcut: 'a' } }, undefined, { timeout: 300 }), /timed out|-32001/i);
  } finally {
    await c.close();
  }
});

test('the debug API: state and faults over HTTP with the key, exempt from the fault switches', async () => {
  const s = await startStandin({ authKey: KEY, faults: { unauthorized: true, allowedHosts: ['x'] } });
  try {
    equal((await fetch(`http://127.0.0.1:${s.port}/vmhub-standin/state`)).status, 401);
    const st = (await (await fetch(`http://127.0.0.1:${s.port}/vmhub-standin/state`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { version: string; focused: string; files: Record<string, string> };
    equal(st.version, '0.8.2');
    equal(st.focused, 'Untitled - Notepad');
    ok(st.files['C:\\Users\\vmhub\\Documents\\readme.txt']);
    const f = await fetch(`http://127.0.0.1:${s.port}/vmhub-standin/faults`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ slowMs: 10 }) });
    deepStrictEqual(await f.json(), { slowMs: 10 });
    deepStrictEqual(s.faults, { slowMs: 10 });
  } finally {
    await s.close();
  }
});

test('an argument the version does not have is refused, as pydantic call validation does (0.8.2 Move has no from_loc)', async () => {
  const c = await open();
  try {
    const r = await c.call('Move', { loc: [5, 5], drag: true, from_loc: [1, 1] });
    ok(r.isError);
    deepStrictEqual(r.content, [{ type: 'text', text: "Error calling tool 'Move': 1 validation error for call[Move]\nfrom_loc\n  Unexpected keyword argument" }]);
    equal(c.s.state.drags.length, 0);
  } finally {
    await c.close();
  }
});

test('snapshotFirst set over the debug API forgets the last Snapshot, as a restarted Windows-MCP would', async () => {
  const c = await open();
  try {
    await c.call('Snapshot');
    ok(!(await c.call('Click', { label: 0 })).isError);
    await fetch(`http://127.0.0.1:${c.s.port}/vmhub-standin/faults`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify({ snapshotFirst: true }) });
    match(JSON.stringify((await c.call('Click', { loc: [3, 3] })).content), /Desktop state is empty/);
    await c.call('Snapshot');
    ok(!(await c.call('Click', { loc: [3, 3] })).isError);
  } finally {
    await c.close();
  }
});
