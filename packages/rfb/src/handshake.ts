/**
 * The RFB handshake (RFC 6143 §7.1–7.3): ProtocolVersion, security negotiation, SecurityResult,
 * ClientInit and ServerInit.
 *
 * Versions: the server's 12-byte greeting `RFB 003.00x\n`. 3.3 lets the server pick the security
 * type (u32); 3.7 and 3.8 send a list the client picks from. 3.7 sends no SecurityResult after
 * None, and only 3.8 sends a reason string with a failed SecurityResult. Apple's Screen Sharing
 * greets with `RFB 003.889`; like noVNC (core/rfb.js `_negotiateProtocolVersion`) the client
 * answers `RFB 003.008` and speaks 3.8, which is where Apple offers type 30 (ARD). Unknown
 * versions above 3.8 (RealVNC 4.x/5.x, Intel AMT 4.0) are answered with 3.8 too.
 */
import { ardResponse, vncAuthResponse } from './auth.ts';
import type { ByteReader } from './byte-reader.ts';
import { RfbError } from './errors.ts';

export type RfbProtocol = '3.3' | '3.7' | '3.8' | '3.889';
export type RfbSecurity = 'none' | 'vnc' | 'ard';

export interface PixelFormat {
  bitsPerPixel: number;
  depth: number;
  bigEndian: boolean;
  trueColour: boolean;
  redMax: number; greenMax: number; blueMax: number;
  redShift: number; greenShift: number; blueShift: number;
}

export interface ServerInit {
  width: number;
  height: number;
  pixelFormat: PixelFormat;
  name: string;
}

export interface HandshakeResult {
  protocol: RfbProtocol;
  security: RfbSecurity;
  init: ServerInit;
}

export interface Credentials {
  password?: string;
  username?: string;
}

const SEC_NONE = 1;
const SEC_VNC = 2;
const SEC_ARD = 30;

export function parseVersion(greeting: string): { protocol: RfbProtocol; reply: string } {
  const m = /^RFB (\d{3})\.(\d{3})\n$/.exec(greeting);
  if (!m) throw new RfbError('PROTOCOL', `not an RFB server: it greeted with ${JSON.stringify(greeting)}`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major === 3 && minor === 889) return { protocol: '3.889', reply: 'RFB 003.008\n' };
  if (major < 3 || (major === 3 && minor < 3)) throw new RfbError('PROTOCOL', `RFB version ${m[1]}.${m[2]} is older than 3.3`);
  if (major === 3 && minor < 7) return { protocol: '3.3', reply: 'RFB 003.003\n' }; // 3.5 and UltraVNC's 3.6 are 3.3 (RFC 6143 §7.1.1)
  if (major === 3 && minor === 7) return { protocol: '3.7', reply: 'RFB 003.007\n' };
  return { protocol: '3.8', reply: 'RFB 003.008\n' };
}

export function parsePixelFormat(b: Buffer): PixelFormat {
  return {
    bitsPerPixel: b[0], depth: b[1], bigEndian: b[2] !== 0, trueColour: b[3] !== 0,
    redMax: b.readUInt16BE(4), greenMax: b.readUInt16BE(6), blueMax: b.readUInt16BE(8),
    redShift: b[10], greenShift: b[11], blueShift: b[12],
  };
}

function pickSecurity(offered: number[], creds: Credentials): number {
  if (creds.password !== undefined && creds.username !== undefined && offered.includes(SEC_ARD)) return SEC_ARD;
  if (offered.includes(SEC_NONE)) return SEC_NONE;
  if (offered.includes(SEC_VNC)) {
    if (creds.password === undefined) throw new RfbError('AUTH_FAILED', 'the server asks for a VNC password (security type 2) and none was given');
    return SEC_VNC;
  }
  if (offered.includes(SEC_ARD)) {
    throw new RfbError('AUTH_FAILED', 'the server asks for Apple Remote Desktop authentication (security type 30): give a username and a password (the Mac account)');
  }
  throw new RfbError('PROTOCOL', `the server offers security types [${offered.join(', ')}]; this client speaks None (1), VNC (2) and ARD (30)`);
}

async function failureReason(r: ByteReader): Promise<string> {
  try {
    return await r.string(4096);
  } catch {
    return '';
  }
}

export async function handshake(r: ByteReader, write: (b: Buffer) => void, creds: Credentials, shared: boolean): Promise<HandshakeResult> {
  const { protocol, reply } = parseVersion((await r.read(12)).toString('latin1'));
  write(Buffer.from(reply, 'latin1'));
  const speaks38 = protocol === '3.8' || protocol === '3.889';

  let type: number;
  if (protocol === '3.3') {
    type = await r.u32();
    if (type === 0) throw new RfbError('PROTOCOL', `the server refused the connection: ${await failureReason(r) || 'no reason given'}`);
    if (type !== SEC_NONE && type !== SEC_VNC) throw new RfbError('PROTOCOL', `RFB 3.3 server chose security type ${type}; this client speaks None (1) and VNC (2) there`);
    if (type === SEC_VNC && creds.password === undefined) throw new RfbError('AUTH_FAILED', 'the server asks for a VNC password (security type 2) and none was given');
  } else {
    const n = await r.u8();
    if (n === 0) throw new RfbError('PROTOCOL', `the server refused the connection: ${await failureReason(r) || 'no reason given'}`);
    const offered = [...(await r.read(n))];
    type = pickSecurity(offered, creds);
    write(Buffer.from([type]));
  }

  if (type === SEC_VNC) {
    write(vncAuthResponse(creds.password!, await r.read(16)));
  } else if (type === SEC_ARD) {
    const head = await r.read(4);
    const keyLength = head.readUInt16BE(2);
    if (keyLength < 1 || keyLength > 1024) throw new RfbError('PROTOCOL', `ARD key length ${keyLength} is out of range`);
    const body = await r.read(2 * keyLength);
    write(ardResponse({ generator: head.subarray(0, 2), prime: body.subarray(0, keyLength), serverPublicKey: body.subarray(keyLength) }, creds.username!, creds.password!));
  }

  // 3.3 and 3.7 send no SecurityResult for None; 3.8 always does.
  if (type !== SEC_NONE || speaks38) {
    const result = await r.u32();
    if (result !== 0) {
      const reason = speaks38 ? await failureReason(r) : '';
      const what = type === SEC_ARD ? 'ARD username or password' : type === SEC_VNC ? 'VNC password' : 'connection';
      throw new RfbError(type === SEC_NONE ? 'PROTOCOL' : 'AUTH_FAILED', `the server rejected the ${what}${reason ? `: ${reason}` : ''}`);
    }
  }

  write(Buffer.from([shared ? 1 : 0]));
  const head = await r.read(24);
  const name = (await r.read(head.readUInt32BE(20))).toString('utf8');
  const init: ServerInit = { width: head.readUInt16BE(0), height: head.readUInt16BE(2), pixelFormat: parsePixelFormat(head.subarray(4, 20)), name };
  return { protocol, security: type === SEC_ARD ? 'ard' : type === SEC_VNC ? 'vnc' : 'none', init };
}
