import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectRfb, ENCODINGS } from '../src/index.ts';
import { fakeServer, serverInit, u32 } from './fake-server.ts';

test('rfb: 3.3 server-chosen None, no SecurityResult, then ServerInit; client answers 003.003', async () => {
  let clientVersion = '';
  const fake = await fakeServer(async (sock, read) => {
    sock.write('RFB 003.003\n');
    clientVersion = (await read(12)).toString();
    sock.write(u32(1));
    await read(1); // ClientInit
    sock.write(serverInit(16, 8, 'three-three'));
  });
  const rfb = await connectRfb(await fake.dial());
  assert.equal(clientVersion, 'RFB 003.003\n');
  assert.deepEqual([rfb.protocol, rfb.security, rfb.name, rfb.width, rfb.height], ['3.3', 'none', 'three-three', 16, 8]);
  await rfb.close();
  await fake.close();
});

test('rfb: 3.7 None has no SecurityResult; 3.8 does; 3.889 is answered with 003.008', async () => {
  for (const [greet, expectReply, result, protocol] of [['RFB 003.007\n', 'RFB 003.007\n', false, '3.7'], ['RFB 003.008\n', 'RFB 003.008\n', true, '3.8'], ['RFB 003.889\n', 'RFB 003.008\n', true, '3.889']] as const) {
    let reply = '';
    const fake = await fakeServer(async (sock, read) => {
      sock.write(greet);
      reply = (await read(12)).toString();
      sock.write(Buffer.from([2, 2, 1])); // VNC and None offered: None is picked without a password
      assert.equal((await read(1))[0], 1);
      if (result) sock.write(u32(0));
      await read(1);
      sock.write(serverInit(10, 10));
    });
    const rfb = await connectRfb(await fake.dial());
    assert.equal(reply, expectReply);
    assert.equal(rfb.protocol, protocol);
    assert.equal(rfb.security, 'none');
    await rfb.close();
    await fake.close();
  }
});

test('rfb: a failed VNC auth on 3.8 carries the server\'s reason as AUTH_FAILED', async () => {
  const fake = await fakeServer(async (sock, read) => {
    sock.write('RFB 003.008\n');
    await read(12);
    sock.write(Buffer.from([1, 2]));
    await read(1);
    sock.write(Buffer.alloc(16, 1));
    await read(16);
    const why = Buffer.from('Authentication failure');
    sock.end(Buffer.concat([u32(1), u32(why.length), why]));
  });
  await assert.rejects(connectRfb(await fake.dial(), { password: 'nope' }), (err: Error & { code: string }) => err.code === 'AUTH_FAILED' && /Authentication failure/.test(err.message));
  await assert.rejects(connectRfb(await fake.dial()), (err: Error & { code: string }) => err.code === 'AUTH_FAILED' && /password/.test(err.message), 'no password given');
  await fake.close();
});

test('rfb: a refused connection, a non-RFB greeting and unknown security types are PROTOCOL errors', async () => {
  const refused = await fakeServer(async (sock, read) => {
    sock.write('RFB 003.008\n');
    await read(12);
    sock.end(Buffer.concat([Buffer.from([0]), u32(9), Buffer.from('too many!')]));
  });
  await assert.rejects(connectRfb(await refused.dial()), /too many!/);
  await refused.close();
  const http = await fakeServer(async (sock) => { sock.end('HTTP/1.1 400\r\n\r\n'); });
  await assert.rejects(connectRfb(await http.dial()), { code: 'PROTOCOL' });
  await http.close();
  const vencrypt = await fakeServer(async (sock, read) => { sock.write('RFB 003.008\n'); await read(12); sock.write(Buffer.from([1, 19])); });
  await assert.rejects(connectRfb(await vencrypt.dial()), (err: Error & { code: string }) => err.code === 'PROTOCOL' && /\[19\]/.test(err.message));
  await vencrypt.close();
});

test('rfb: a silent server hits the handshake bound (TIMEOUT); an abort signal stops it (CLOSED); the socket is destroyed', async () => {
  const silent = await fakeServer(async () => undefined);
  const s1 = await silent.dial();
  await assert.rejects(connectRfb(s1, { timeoutMs: 200 }), { code: 'TIMEOUT' });
  assert.ok(s1.destroyed);
  const s2 = await silent.dial();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(connectRfb(s2, { signal: ac.signal }), { code: 'CLOSED' });
  assert.ok(s2.destroyed);
  await silent.close();
});

test('rfb: updates — Raw, CopyRect, DesktopSize, LastRect, bell and cut text; incremental requests follow', async () => {
  const requests: Buffer[] = [];
  let push: ((b: Buffer) => void) | undefined;
  const fake = await fakeServer(async (sock, read) => {
    sock.write('RFB 003.008\n');
    await read(12);
    sock.write(Buffer.from([1, 1]));
    await read(1);
    sock.write(u32(0));
    await read(1);
    sock.write(serverInit(4, 2));
    const pf = await read(20);
    assert.equal(pf[0], 0);
    const se = await read(4);
    const n = se.readUInt16BE(2);
    const encs = await read(4 * n);
    assert.equal(encs.readInt32BE(0), ENCODINGS.copyRect);
    push = (b) => sock.write(b);
    for (;;) requests.push(await read(10));
  });
  const rfb = await connectRfb(await fake.dial(), { encodings: ['copyrect', 'raw'] });
  assert.deepEqual(rfb.encodings, [1, 0, -223, -224]);
  const rect = (x: number, y: number, w: number, h: number, enc: number) => {
    const b = Buffer.alloc(12);
    b.writeUInt16BE(x, 0); b.writeUInt16BE(y, 2); b.writeUInt16BE(w, 4); b.writeUInt16BE(h, 6); b.writeInt32BE(enc, 8);
    return b;
  };
  const header = (n: number) => Buffer.from([0, 0, n >> 8, n & 255]);
  for (let i = 0; !push && i < 400; i++) await new Promise((ok) => setTimeout(ok, 5));
  assert.ok(push, 'the client sent SetPixelFormat and SetEncodings');
  // Raw 4x2: pixel i = (i*10, i*10+1, i*10+2, 0)
  const raw = Buffer.alloc(32);
  for (let i = 0; i < 8; i++) raw.set([i * 10, i * 10 + 1, i * 10 + 2, 0], i * 4);
  push(Buffer.concat([header(1), rect(0, 0, 4, 2, 0), raw]));
  const s1 = await rfb.screenshot();
  assert.deepEqual([...s1.data.subarray(20, 24)], [50, 51, 52, 255], 'pixel (1,1) with alpha 255');
  // CopyRect: (0,0,2,1) ← (2,1); then LastRect ends an update announced as 0xffff rects
  const updated = new Promise((ok) => rfb.once('update', ok));
  const cr = Buffer.alloc(4); cr.writeUInt16BE(2, 0); cr.writeUInt16BE(1, 2);
  push(Buffer.concat([header(0xffff), rect(0, 0, 2, 1, 1), cr, rect(0, 0, 0, 0, -224)]));
  await updated;
  const s2 = await rfb.screenshot();
  assert.deepEqual([...s2.data.subarray(0, 8)], [60, 61, 62, 255, 70, 71, 72, 255]);
  // bell, cut text, then DesktopSize → resize event and a full request for the new size
  const bell = new Promise<void>((ok) => rfb.once('bell', () => ok()));
  const clip = new Promise<string>((ok) => rfb.once('clipboard', ok));
  const resized = new Promise<{ width: number; height: number }>((ok) => rfb.once('resize', ok));
  push(Buffer.concat([Buffer.from([2]), Buffer.from([3, 0, 0, 0]), u32(5), Buffer.from('héllo', 'latin1'), header(1), rect(0, 0, 8, 3, -223)]));
  await bell;
  assert.equal(await clip, 'héllo');
  assert.deepEqual(await resized, { width: 8, height: 3 });
  assert.deepEqual([rfb.width, rfb.height], [8, 3]);
  await new Promise((ok) => setTimeout(ok, 50));
  const full = requests.find((r) => r[1] === 0 && r.readUInt16BE(6) === 8 && r.readUInt16BE(8) === 3);
  assert.ok(full, 'a non-incremental request for the new size');
  assert.ok(requests.some((r) => r[1] === 1), 'incremental requests after updates');
  // sync(): false on the bound with no answer; true once an update covering (0,0) follows the request
  assert.equal(await rfb.sync(100), false);
  const synced = rfb.sync(5000);
  await new Promise((ok) => setTimeout(ok, 50));
  const last = requests.at(-1)!;
  assert.deepEqual([last[1], last.readUInt16BE(2), last.readUInt16BE(4), last.readUInt16BE(6), last.readUInt16BE(8)], [0, 0, 0, 1, 1], 'a non-incremental 1x1 request at the origin');
  push(Buffer.concat([header(1), rect(0, 0, 1, 1, 0), Buffer.alloc(4)]));
  assert.equal(await synced, true);
  // input bytes on the wire
  await rfb.click(3, 1, { button: 'right' });
  await rfb.keyCombo('ctrl+c');
  await rfb.setClipboard('ab€');
  await rfb.close();
  await rfb.close();
  assert.equal(rfb.closed, true);
  await assert.rejects(rfb.pointer(0, 0, 0), { code: 'CLOSED' });
  await fake.close();
});

test('rfb: an unknown encoding from the server closes the client with a PROTOCOL error', async () => {
  const fake = await fakeServer(async (sock, read) => {
    sock.write('RFB 003.008\n'); await read(12); sock.write(Buffer.from([1, 1])); await read(1); sock.write(u32(0)); await read(1);
    sock.write(serverInit(2, 2));
    await read(20 + 4 + 4 * 5 + 10);
    const r = Buffer.alloc(12); r.writeUInt16BE(1, 4); r.writeUInt16BE(1, 6); r.writeInt32BE(7, 8); // Tight, not offered
    sock.write(Buffer.concat([Buffer.from([0, 0, 0, 1]), r]));
  });
  const rfb = await connectRfb(await fake.dial());
  const errors: string[] = [];
  rfb.on('error', (e) => errors.push(e.code));
  const closed = await new Promise<Error | undefined>((ok) => rfb.once('close', ok));
  assert.match(String(closed?.message), /encoding 7/);
  assert.deepEqual(errors, ['PROTOCOL']);
  await assert.rejects(rfb.screenshot(), { code: 'PROTOCOL' });
  await fake.close();
});
