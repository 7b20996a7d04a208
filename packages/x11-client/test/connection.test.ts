/**
 * The X11 wire client against real X servers here (Xvfb): setup, replies matched by sequence,
 * errors (of a request with a reply, and of one without: it fails the next round trip), requests
 * batched in one write yet applied in order, events, a server that wants a cookie, and a closed
 * connection failing what still waits.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startXvfb, type Xvfb } from '../src/xvfb.ts';
import { ATOM_WINDOW, getProperty32, internAtom, pad4, PROPERTY_CHANGE_MASK, PROPERTY_NOTIFY, queryExtension, selectEvents, XConnection, XProtocolError, XRefused } from '../src/index.ts';

const ATOM_CARDINAL = 6;

/** ChangeProperty(window, atom, CARDINAL/32, mode): 0 replace, 2 append. No reply. */
function changeProperty(x: XConnection, window: number, atom: number, values: number[], mode = 0): number {
  const req = Buffer.alloc(24 + values.length * 4);
  req[0] = 18;
  req[1] = mode;
  req.writeUInt16LE(req.length / 4, 2);
  req.writeUInt32LE(window, 4);
  req.writeUInt32LE(atom, 8);
  req.writeUInt32LE(ATOM_CARDINAL, 12);
  req[16] = 32;
  req.writeUInt32LE(values.length, 20);
  values.forEach((v, i) => req.writeUInt32LE(v, 24 + i * 4));
  return x.send(req);
}

describe('x11-client: one connection to a real X server', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-x11client-'));
  const servers: Xvfb[] = [];
  let socket = '';
  before(async () => {
    const x = await startXvfb({ dir });
    servers.push(x);
    socket = x.socket;
  });
  after(() => {
    for (const x of servers) x.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sets up: the root window, the keycode range, the vendor; finds extensions by name', async () => {
    const x = await XConnection.open(socket);
    try {
      assert.ok(x.setup.root > 0);
      assert.deepEqual([x.setup.minKeycode, x.setup.maxKeycode], [8, 255]);
      assert.match(x.setup.vendor, /X\.Org/);
      assert.equal(typeof await queryExtension(x, 'XTEST'), 'number', 'Xvfb has XTEST');
      assert.equal(await queryExtension(x, 'NO-SUCH-EXTENSION-VMHUB'), undefined);
    } finally {
      x.close();
    }
  });

  it('matches replies to requests sent together, and applies requests batched in one write in order', async () => {
    const x = await XConnection.open(socket);
    try {
      const names = Array.from({ length: 20 }, (_, i) => `VMHUB_TEST_${i}_${randomBytes(3).toString('hex')}`);
      // Twenty InternAtom requests in flight at once: each answer goes to its own request.
      const atoms = await Promise.all(names.map((n) => internAtom(x, n, false)));
      assert.equal(new Set(atoms).size, 20);
      assert.deepEqual(await Promise.all(names.map((n) => internAtom(x, n, true))), atoms, 'only-if-exists finds the same atoms');
      // Replace, then 50 appends, queued in one synchronous run: one write, applied in order.
      changeProperty(x, x.setup.root, atoms[0]!, [0]);
      for (let i = 1; i <= 50; i++) changeProperty(x, x.setup.root, atoms[0]!, [i], 2);
      assert.deepEqual(await getProperty32(x, x.setup.root, atoms[0]!, ATOM_CARDINAL, 100), Array.from({ length: 51 }, (_, i) => i));
      assert.deepEqual(await getProperty32(x, x.setup.root, atoms[1]!, ATOM_WINDOW), [], 'a property the window does not have');
    } finally {
      x.close();
    }
  });

  it('errors: a request with a reply gets its own; one without fails the next round trip; the connection goes on', async () => {
    const x = await XConnection.open(socket);
    try {
      const atom = await internAtom(x, 'WM_NAME');
      await assert.rejects(getProperty32(x, 0x7ffffff, atom, ATOM_WINDOW), (err: unknown) => err instanceof XProtocolError && err.code === 3 && err.major === 20, 'BadWindow for GetProperty');
      changeProperty(x, 0x7ffffff, atom, [1]);
      await assert.rejects(x.sync(), (err: unknown) => err instanceof XProtocolError && err.code === 3 && err.major === 18, 'the ChangeProperty error fails the sync after it');
      await x.sync();
      assert.equal(x.closed, false);
    } finally {
      x.close();
    }
  });

  it('hands events on: PropertyNotify on the root for a change another client makes', async () => {
    const events: Buffer[] = [];
    const watcher = await XConnection.open(socket, { onEvent: (e) => events.push(e) });
    const other = await XConnection.open(socket);
    try {
      const atom = await internAtom(other, `VMHUB_EVENT_${randomBytes(3).toString('hex')}`, false);
      selectEvents(watcher, watcher.setup.root, PROPERTY_CHANGE_MASK);
      await watcher.sync();
      changeProperty(other, other.setup.root, atom, [7]);
      await other.sync();
      for (let i = 0; i < 100 && !events.some((e) => (e[0]! & 0x7f) === PROPERTY_NOTIFY && e.readUInt32LE(8) === atom); i++) await sleep(20);
      const e = events.find((ev) => (ev[0]! & 0x7f) === PROPERTY_NOTIFY && ev.readUInt32LE(8) === atom);
      assert.ok(e, `a PropertyNotify for the atom (events: ${events.map((ev) => ev[0]).join(',')})`);
      assert.equal(e.readUInt32LE(4), watcher.setup.root, 'on the root window');
    } finally {
      watcher.close();
      other.close();
    }
  });

  it('a server that stops answering: the request fails after requestTimeoutMs and the connection is closed', async () => {
    const stopped = await startXvfb({ dir });
    servers.push(stopped);
    const x = await XConnection.open(stopped.socket, { requestTimeoutMs: 300 });
    stopped.proc.kill('SIGSTOP');
    try {
      const started = Date.now();
      await assert.rejects(internAtom(x, 'WM_NAME'), /did not answer request 16 within 300 ms/);
      assert.ok(Date.now() - started < 10_000, 'failed by the bound, not by the test\'s timeout');
      assert.equal(x.closed, true);
      await assert.rejects(x.sync(), /did not answer/);
    } finally {
      stopped.proc.kill('SIGCONT');
    }
  });

  it('closing fails what still waits, and every later request, with the reason', async () => {
    const x = await XConnection.open(socket);
    const waiting = internAtom(x, 'WM_NAME');
    x.close();
    await assert.rejects(waiting, /closed/);
    await assert.rejects(x.sync(), /closed/);
    assert.throws(() => x.send(Buffer.alloc(4)), /closed/);
    assert.equal(x.closed, true);
  });

  it('a server that wants a cookie refuses the connection: XRefused with its reason; no server: the socket error', async () => {
    const cookie = await startXvfb({ dir, cookie: true });
    servers.push(cookie);
    await assert.rejects(XConnection.open(cookie.socket), (err: unknown) => err instanceof XRefused && /refused the connection/.test((err as Error).message));
    await assert.rejects(XConnection.open(join(dir, 'X-none')), /ENOENT/);
  });

  it('pad4 rounds a length up to the next four bytes', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5].map(pad4), [0, 3, 2, 1, 0, 3]);
  });
});
