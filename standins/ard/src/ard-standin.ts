/**
 * ard-standin: an RFB server front that speaks Apple's dialect of the handshake and relays the
 * rest of the session to a real VNC server, so the macOS adapter's ARD path can be tested
 * without a Mac. Usage:
 *
 *   node ard-standin.js --listen 0.0.0.0:5900 --upstream 127.0.0.1:5901 --username U --password P
 *                       [--upstream-password X]
 *
 * It greets with `RFB 003.889`, offers only security type 30 and runs the Diffie-Hellman
 * exchange as publicly documented:
 *   - the community RFB specification rfbproto.rst, "Diffie-Hellman Authentication" (type 30);
 *   - noVNC core/rfb.js `_negotiateARDAuth` / `_negotiateARDAuthAsync` (client side; its byte
 *     order: 128-byte ciphertext, then the client's public key);
 *   - LibVNCServer libvncclient/rfbproto.c `HandleARDAuth` (client side, same layout).
 * Server → client: generator (u16), key length (u16), prime, server public key (key length bytes
 * each). Client → server: AES-128-ECB(key = MD5(shared secret)) of a 128-byte block holding the
 * username in bytes 0–63 and the password in 64–127, each NUL-terminated, then the client's
 * public key. The group here is the 1024-bit Oakley group 2 (RFC 2409 §6.2, generator 2), a
 * 128-byte key as Apple's servers use.
 *
 * After the credentials check it does its own handshake with the upstream server (None, or VNC
 * auth with --upstream-password), answers SecurityResult, forwards the client's ClientInit and
 * from then on copies bytes both ways (ServerInit, every message after it). Apple's later
 * extensions (its own ClientInit/ServerInit, session select, encodings 1000–1002, session
 * encryption) are not simulated: a client that answers `RFB 003.008`, as noVNC does, never asks
 * for them.
 *
 * SELF-CONTAINED ON PURPOSE: this file imports only node: builtins, so the built
 * dist/ard-standin.js can be copied alone into a guest and run by Node 18 (Debian bookworm's
 * nodejs). Install it with a .mjs name (it is an ES module) or next to a package.json with
 * "type": "module".
 */
import { createCipheriv, createDecipheriv, createHash, getDiffieHellman, timingSafeEqual } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ArdStandinOptions {
  listen: { host: string; port: number };
  upstream: { host: string; port: number };
  username: string;
  password: string;
  upstreamPassword?: string;
  log?: (line: string) => void;
}

/** Exact-length reads; detach() hands the stream and what is buffered on to a pipe. */
class Reader {
  private chunks: Buffer[] = [];
  private length = 0;
  private waiting: { n: number; ok: (b: Buffer) => void; fail: (e: Error) => void } | undefined;
  private ended: Error | undefined;
  private readonly onData = (c: Buffer) => {
    this.chunks.push(c);
    this.length += c.length;
    this.pump();
  };
  private readonly socket: Socket;
  constructor(socket: Socket, what: string) {
    this.socket = socket;
    socket.on('data', this.onData);
    const end = () => this.end(new Error(`${what} closed the connection`));
    socket.once('end', end);
    socket.once('close', end);
    socket.on('error', (err) => this.end(new Error(`${what}: ${err.message}`)));
  }
  end(err: Error): void {
    if (!this.ended) this.ended = err;
    this.pump();
  }
  private pump(): void {
    const w = this.waiting;
    if (!w) return;
    if (this.length >= w.n) {
      this.waiting = undefined;
      const all = Buffer.concat(this.chunks);
      this.chunks = all.length > w.n ? [all.subarray(w.n)] : [];
      this.length -= w.n;
      w.ok(all.subarray(0, w.n));
    } else if (this.ended) {
      this.waiting = undefined;
      w.fail(this.ended);
    }
  }
  read(n: number): Promise<Buffer> {
    return new Promise((ok, fail) => {
      this.waiting = { n, ok, fail };
      this.pump();
    });
  }
  async u32(): Promise<number> { return (await this.read(4)).readUInt32BE(0); }
  detach(): Buffer {
    this.socket.pause();
    this.socket.off('data', this.onData);
    const rest = Buffer.concat(this.chunks);
    this.chunks = [];
    this.length = 0;
    return rest;
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
}

function reasonString(text: string): Buffer {
  const t = Buffer.from(text, 'utf8');
  return Buffer.concat([u32(t.length), t]);
}

function leftPad(b: Buffer, n: number): Buffer {
  return b.length >= n ? b.subarray(b.length - n) : Buffer.concat([Buffer.alloc(n - b.length), b]);
}

function cString(b: Buffer): Buffer {
  const nul = b.indexOf(0);
  return nul < 0 ? b : b.subarray(0, nul);
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/** VNC auth with the upstream: DES (as K‖K two-key 3DES) with the bit-reversed password bytes. */
function vncResponse(password: string, challenge: Buffer): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, 'latin1').copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i++) {
    let r = 0;
    for (let bit = 0; bit < 8; bit++) if (key[i] & (1 << bit)) r |= 0x80 >> bit;
    key[i] = r;
  }
  const c = createCipheriv('des-ede-ecb', Buffer.concat([key, key]), null);
  c.setAutoPadding(false);
  return Buffer.concat([c.update(challenge), c.final()]);
}

/** Client side of the upstream handshake, up to (not including) ClientInit. */
async function upstreamHandshake(r: Reader, sock: Socket, password: string | undefined): Promise<void> {
  const greeting = (await r.read(12)).toString('latin1');
  const m = /^RFB (\d{3})\.(\d{3})\n$/.exec(greeting);
  if (!m) throw new Error(`upstream is not an RFB server (${JSON.stringify(greeting)})`);
  const minor = Number(m[1]) > 3 ? 8 : Math.min(8, Number(m[2]));
  const v = minor >= 8 ? 8 : minor >= 7 ? 7 : 3;
  sock.write(`RFB 003.00${v}\n`);
  let type: number;
  if (v === 3) {
    type = await r.u32();
  } else {
    const n = (await r.read(1))[0];
    if (n === 0) throw new Error(`upstream refused: ${(await r.read(await r.u32())).toString('latin1')}`);
    const offered = [...(await r.read(n))];
    type = offered.includes(1) ? 1 : offered.includes(2) ? 2 : 0;
    if (!type) throw new Error(`upstream offers security types [${offered.join(', ')}]; the stand-in speaks None and VNC auth to it`);
    sock.write(Buffer.from([type]));
  }
  if (type === 2) {
    if (password === undefined) throw new Error('upstream asks for a VNC password: pass --upstream-password');
    sock.write(vncResponse(password, await r.read(16)));
  } else if (type !== 1) {
    throw new Error(`upstream chose security type ${type}`);
  }
  if (type === 2 || v === 8) {
    if ((await r.u32()) !== 0) throw new Error('upstream rejected the VNC password');
  }
}

async function serve(client: Socket, o: ArdStandinOptions): Promise<void> {
  const log = o.log ?? (() => undefined);
  const cr = new Reader(client, 'the client');
  client.write('RFB 003.889\n');
  const reply = (await cr.read(12)).toString('latin1');
  const m = /^RFB 003\.(\d{3})\n$/.exec(reply);
  if (!m) throw new Error(`client answered ${JSON.stringify(reply)}`);
  const minor = Number(m[1]);
  const withReasons = minor >= 8; // 003.008 and 003.889
  if (minor < 7) {
    client.write(u32(30)); // 3.3: the server names the type
  } else {
    client.write(Buffer.from([1, 30]));
    const chosen = (await cr.read(1))[0];
    if (chosen !== 30) throw new Error(`client chose security type ${chosen}; only 30 (ARD) is offered`);
  }

  const dh = getDiffieHellman('modp2');
  const keyLength = dh.getPrime().length;
  const serverPub = leftPad(dh.generateKeys(), keyLength);
  const head = Buffer.alloc(4);
  head.writeUInt16BE(2, 0);
  head.writeUInt16BE(keyLength, 2);
  client.write(Buffer.concat([head, dh.getPrime(), serverPub]));
  const answer = await cr.read(128 + keyLength);
  let ok = false;
  try {
    const shared = leftPad(dh.computeSecret(answer.subarray(128)), keyLength);
    const d = createDecipheriv('aes-128-ecb', createHash('md5').update(shared).digest(), null);
    d.setAutoPadding(false);
    const block = Buffer.concat([d.update(answer.subarray(0, 128)), d.final()]);
    const userOk = sameBytes(cString(block.subarray(0, 64)), Buffer.from(o.username, 'utf8'));
    const passOk = sameBytes(cString(block.subarray(64, 128)), Buffer.from(o.password, 'utf8'));
    ok = userOk && passOk;
  } catch {
    ok = false; // a public key outside the group
  }
  const refuse = (why: string) => {
    client.end(Buffer.concat([u32(1), withReasons ? reasonString(why) : Buffer.alloc(0)]));
  };
  if (!ok) {
    log('ard-standin: authentication failed');
    refuse('Authentication failed');
    return;
  }

  const up = connect(o.upstream.port, o.upstream.host);
  const ur = new Reader(up, 'the upstream VNC server');
  try {
    await upstreamHandshake(ur, up, o.upstreamPassword);
  } catch (err) {
    log(`ard-standin: upstream ${o.upstream.host}:${o.upstream.port}: ${(err as Error).message}`);
    up.destroy();
    refuse(`the stand-in's upstream VNC server failed: ${(err as Error).message}`);
    return;
  }
  client.write(u32(0));
  up.write(await cr.read(1)); // ClientInit (shared flag)
  const fromClient = cr.detach();
  const fromUp = ur.detach();
  if (fromClient.length) up.write(fromClient);
  if (fromUp.length) client.write(fromUp);
  client.pipe(up);
  up.pipe(client);
  const closeBoth = () => { client.destroy(); up.destroy(); };
  client.once('close', closeBoth);
  up.once('close', closeBoth);
  log('ard-standin: session relayed');
}

export function startArdStandin(o: ArdStandinOptions): Promise<Server> {
  const server = createServer((client) => {
    client.setNoDelay(true);
    client.on('error', () => undefined);
    const timer = setTimeout(() => client.destroy(), 30_000); // a stalled handshake
    serve(client, o).then(() => clearTimeout(timer), (err: Error) => {
      clearTimeout(timer);
      (o.log ?? (() => undefined))(`ard-standin: ${err.message}`);
      client.destroy();
    });
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(o.listen.port, o.listen.host, () => {
      server.off('error', fail);
      ok(server);
    });
  });
}

function hostPort(v: string | undefined, flag: string): { host: string; port: number } {
  const m = v ? /^(.*):(\d+)$/.exec(v) : null;
  if (!m) throw new Error(`${flag} needs host:port`);
  return { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

export function parseArgs(argv: string[]): ArdStandinOptions {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const username = get('--username');
  const password = get('--password');
  if (username === undefined || password === undefined) throw new Error('--username and --password are required');
  return {
    listen: hostPort(get('--listen') ?? '0.0.0.0:5900', '--listen'),
    upstream: hostPort(get('--upstream') ?? '127.0.0.1:5901', '--upstream'),
    username,
    password,
    upstreamPassword: get('--upstream-password'),
  };
}

function isMain(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  try {
    const o = parseArgs(process.argv.slice(2));
    o.log = (line) => process.stderr.write(`${line}\n`);
    startArdStandin(o).then(() => {
      process.stderr.write(`ard-standin: RFB 003.889 / ARD on ${o.listen.host}:${o.listen.port}, relaying to ${o.upstream.host}:${o.upstream.port}\n`);
    }, (err: Error) => {
      process.stderr.write(`ard-standin: cannot listen on ${o.listen.host}:${o.listen.port}: ${err.message}\n`);
      process.exit(1);
    });
  } catch (err) {
    process.stderr.write(`ard-standin: ${(err as Error).message}\nusage: node ard-standin.js --listen 0.0.0.0:5900 --upstream 127.0.0.1:5901 --username U --password P [--upstream-password X]\n`);
    process.exit(2);
  }
}
