import assert from 'node:assert/strict';
import { createDecipheriv, createHash, getDiffieHellman } from 'node:crypto';
import { test } from 'node:test';
import { ardResponse, vncAuthResponse } from './auth.ts';

function reverse(b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 0x80 >> i;
  return r;
}

test('rfb: VNC auth is DES with the bit-reversed password as key (classic DES vector)', () => {
  // DES(K=133457799BBCDFF1, 0123456789ABCDEF) = 85E813540F0AB405; the password whose bit-reversed bytes are K.
  const password = Buffer.from([...Buffer.from('133457799BBCDFF1', 'hex')].map(reverse)).toString('latin1');
  const challenge = Buffer.from('0123456789ABCDEF0123456789ABCDEF', 'hex');
  assert.equal(vncAuthResponse(password, challenge).toString('hex'), '85e813540f0ab405'.repeat(2));
});

test('rfb: VNC auth uses only the first 8 password bytes, zero padded', () => {
  const ch = Buffer.alloc(16, 7);
  assert.deepEqual(vncAuthResponse('12345678', ch), vncAuthResponse('123456789xyz', ch));
  assert.deepEqual(vncAuthResponse('abc', ch), vncAuthResponse('abc\0\0\0\0\0', ch));
  assert.notDeepEqual(vncAuthResponse('abc', ch), vncAuthResponse('abd', ch));
});

test('rfb: ARD response is AES-128-ECB(MD5(shared)) of user‖password halves, then the client key', () => {
  const server = getDiffieHellman('modp2');
  const serverPub = server.generateKeys();
  const out = ardResponse({ generator: Buffer.from([0, 2]), prime: server.getPrime(), serverPublicKey: serverPub }, 'lume', 'pässword');
  assert.equal(out.length, 128 + 128);
  const shared = server.computeSecret(out.subarray(128));
  const key = createHash('md5').update(Buffer.concat([Buffer.alloc(128 - shared.length), shared])).digest();
  const d = createDecipheriv('aes-128-ecb', key, null);
  d.setAutoPadding(false);
  const block = Buffer.concat([d.update(out.subarray(0, 128)), d.final()]);
  assert.equal(block.subarray(0, block.indexOf(0)).toString(), 'lume');
  assert.equal(block.subarray(64, block.indexOf(0, 64)).toString(), 'pässword');
});

test('rfb: ARD refuses credentials that do not fit 63 bytes', () => {
  const s = getDiffieHellman('modp2');
  const ch = { generator: Buffer.from([0, 2]), prime: s.getPrime(), serverPublicKey: s.generateKeys() };
  assert.throws(() => ardResponse(ch, 'u', 'x'.repeat(64)), { code: 'AUTH_FAILED' });
  assert.throws(() => ardResponse(ch, 'a\0b', 'x'), { code: 'AUTH_FAILED' });
});
