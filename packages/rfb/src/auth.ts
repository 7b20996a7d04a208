/**
 * The two password-based security types.
 *
 * VNC authentication (type 2, RFC 6143 §7.2.2): the server sends a 16-byte challenge; the client
 * DES-encrypts it (ECB, two blocks) with a key made of the first 8 password bytes, zero padded,
 * each byte's bits reversed (the historical quirk every VNC implementation shares; noVNC's
 * `genDES` and LibVNCServer's `rfbEncryptBytes` do the same). OpenSSL 3 moved single DES to the
 * legacy provider, so this uses two-key triple DES with K‖K, which is single DES with K
 * (EDE: E_K(D_K(E_K(x))) = E_K(x)).
 *
 * Apple Remote Desktop authentication (type 30, "Diffie-Hellman Authentication" in the community
 * rfbproto.rst; noVNC core/rfb.js `_negotiateARDAuth`/`_negotiateARDAuthAsync`; LibVNCServer
 * libvncclient `HandleARDAuth`): the server sends generator (u16), key length (u16), the prime and
 * its public key (key length bytes each). The client makes its own key pair on that group, takes
 * the shared secret (left-padded to key length), MD5 of it is an AES-128 key, and encrypts with
 * AES-128-ECB a 128-byte block: username in bytes 0–63 and password in 64–127, each UTF-8 cut to
 * 63 bytes, NUL-terminated, the rest random. It sends the 128-byte ciphertext, then its public key
 * (noVNC's order).
 */
import { createCipheriv, createDiffieHellman, createHash, randomBytes } from 'node:crypto';
import { RfbError } from './errors.ts';

function reverseBits(b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 0x80 >> i;
  return r;
}

/** The 16-byte response to a VNC-auth challenge. */
export function vncAuthResponse(password: string, challenge: Buffer): Buffer {
  if (challenge.length !== 16) throw new RfbError('PROTOCOL', `VNC auth challenge of ${challenge.length} bytes, expected 16`);
  const key = Buffer.alloc(8);
  Buffer.from(password, 'latin1').copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i++) key[i] = reverseBits(key[i]);
  const cipher = createCipheriv('des-ede-ecb', Buffer.concat([key, key]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(challenge), cipher.final()]);
}

export interface ArdChallenge {
  generator: Buffer;
  prime: Buffer;
  serverPublicKey: Buffer;
}

function leftPad(b: Buffer, n: number): Buffer {
  if (b.length >= n) return b.subarray(b.length - n);
  return Buffer.concat([Buffer.alloc(n - b.length), b]);
}

function credentialHalf(value: string, what: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.includes(0)) throw new RfbError('AUTH_FAILED', `the ARD ${what} contains a NUL byte`);
  if (bytes.length > 63) throw new RfbError('AUTH_FAILED', `the ARD ${what} is ${bytes.length} bytes of UTF-8; ARD carries at most 63`);
  return bytes;
}

/** ciphertext (128 bytes) followed by the client's public key (key length bytes). */
export function ardResponse(challenge: ArdChallenge, username: string, password: string): Buffer {
  const keyLength = challenge.prime.length;
  const user = credentialHalf(username, 'username');
  const pass = credentialHalf(password, 'password');
  const dh = createDiffieHellman(challenge.prime, challenge.generator);
  const pub = leftPad(dh.generateKeys(), keyLength);
  const shared = leftPad(dh.computeSecret(challenge.serverPublicKey), keyLength);
  const key = createHash('md5').update(shared).digest();
  const block = randomBytes(128);
  user.copy(block, 0);
  block[user.length] = 0;
  pass.copy(block, 64);
  block[64 + pass.length] = 0;
  const cipher = createCipheriv('aes-128-ecb', key, null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final(), pub]);
}
