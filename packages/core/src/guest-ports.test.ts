import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { describe, it } from 'node:test';
import type { GuestEndpoint } from './adapter.ts';
import { GuestPorts } from './guest-ports.ts';
import { VmhubError } from './errors.ts';

/** A loopback "guest" echo server; its port stands for a port inside the machine. */
async function guest(): Promise<{ port: number; sockets: Set<Socket>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); s.pipe(s); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, sockets, close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }) };
}

const dial = (port: number) => async () => {
  const s = connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => { s.once('connect', resolve); s.once('error', reject); });
  return s;
};

/**
 * Connect to `ep` as the local user `nobody` (setpriv, so root is needed) with this very node,
 * send "ping" and report what happened: `echo:<reply>` or the errno code (EACCES, …).
 */
function connectAsNobody(ep: GuestEndpoint): Promise<string> {
  const script = `const s = require('node:net').connect(${JSON.stringify(ep)});
s.on('connect', () => s.write('ping')); s.on('data', (d) => { console.log('echo:' + d); s.destroy(); });
s.on('error', (e) => console.log(e.code));`;
  return new Promise((resolve, reject) => {
    execFile('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '-e', script], { timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`setpriv: ${err.message} ${stderr}`));
      else resolve(stdout.trim());
    });
  });
}

const asNobody = process.getuid?.() !== 0 ? 'needs root to run a client as nobody (setpriv)' : !existsSync('/usr/bin/setpriv') ? 'setpriv missing (util-linux)' : undefined;

describe('core: GuestPorts', () => {
  it('forward is a unix socket in a 0700 directory: the vmhub user reaches the guest, another local user (nobody) gets EACCES', { skip: asNobody }, async () => {
    const g = await guest();
    const ports = new GuestPorts(() => dial(g.port)());
    const ep = await ports.forward(9);
    try {
      assert.equal(await connectAsNobody(ep), 'EACCES', `nobody cannot connect to the forward at ${JSON.stringify(ep)}`);
      assert.ok(ep.path, `a unix socket, not ${JSON.stringify(ep)}`);
    } catch (err) {
      await ports.close();
      await g.close();
      throw err;
    }
    const dir = statSync(dirname(ep.path));
    assert.equal(dir.mode & 0o777, 0o700, 'the socket directory is 0700');
    assert.equal(dir.uid, process.getuid!(), 'owned by the vmhub user');
    const ok = connect(ep);
    const echoed = await new Promise<string>((resolve) => { ok.once('data', (d: Buffer) => resolve(d.toString())); ok.write('mine'); });
    assert.equal(echoed, 'mine', 'the vmhub user reaches the guest through it');
    ok.destroy();
    await ports.close();
    assert.equal(existsSync(dirname(ep.path)), false, 'close() removes the socket directory');
    await g.close();
  });

  it('{tcp: true} (a template\'s forward_tcp) listens on 127.0.0.1, which any local user reaches', { skip: asNobody }, async () => {
    const g = await guest();
    const ports = new GuestPorts(() => dial(g.port)(), { tcp: true });
    const ep = await ports.forward(9);
    assert.equal(ep.host, '127.0.0.1');
    assert.ok((ep.port ?? 0) > 0);
    assert.equal(await connectAsNobody(ep), 'echo:ping', 'the opt-in is what it says: nobody reaches the guest');
    await ports.close();
    await g.close();
  });

  it('forward gives one loopback address per port; each connection tunnels to the guest, half-close included', async () => {
    const g = await guest();
    const ports = new GuestPorts(() => dial(g.port)());
    const ep = await ports.forward(9);
    assert.deepEqual(await ports.forward(9), ep, 'the same port asked twice gives the same address');
    const c = connect(ep);
    const got: Buffer[] = [];
    c.on('data', (d: Buffer) => got.push(d));
    c.end('hello, then FIN');
    await new Promise((r) => c.on('end', r));
    assert.equal(Buffer.concat(got).toString(), 'hello, then FIN', 'the reply arrives after the client half-closed');
    await ports.close();
    await g.close();
  });

  it('close() destroys open streams and accepted connections at once (an idle keep-alive socket does not hold it), and refuses later use', async () => {
    const g = await guest();
    const ports = new GuestPorts(() => dial(g.port)());
    const direct = await ports.connect(9);
    const ep = await ports.forward(9);
    const idle = connect(ep);
    await new Promise((r) => idle.once('connect', r));
    for (let i = 0; i < 50 && g.sockets.size < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(g.sockets.size, 2, 'the direct stream and the forwarded connection both reached the guest');
    assert.equal(ports.open, 3, 'two guest streams and one listener');
    const started = Date.now();
    await ports.close();
    assert.ok(Date.now() - started < 1000, 'close did not wait for the idle client');
    assert.equal(ports.open, 0);
    assert.equal(direct.destroyed, true);
    if (!idle.closed) await new Promise((r) => idle.once('close', r));
    await assert.rejects(ports.connect(9), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED');
    await assert.rejects(ports.forward(9), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED');
    await g.close();
  });

  it('a connection the guest refuses is dropped on the host side, and the listener keeps serving', async () => {
    let fail = true;
    const g = await guest();
    const ports = new GuestPorts(() => (fail ? Promise.reject(new Error('refused')) : dial(g.port)()));
    const ep = await ports.forward(9);
    const refused = connect(ep);
    await new Promise((r) => refused.once('close', r));
    fail = false;
    const ok = connect(ep);
    const echoed = await new Promise<string>((resolve) => { ok.once('data', (d: Buffer) => resolve(d.toString())); ok.write('again'); });
    assert.equal(echoed, 'again');
    ok.destroy();
    await ports.close();
    await g.close();
  });
});
