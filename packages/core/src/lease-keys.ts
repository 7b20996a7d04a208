/**
 * Per-lease SSH key pairs, for every provider whose machines run sshd: ed25519 from node:crypto,
 * written in OpenSSH formats (the public line cloud-init or the provider installs for the lease's
 * user, the `openssh-key-v1` private key ssh2 and OpenSSH read). Made at create, held by the
 * provider (LeaseSecrets), destroyed at teardown; never in a golden image.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';

export interface LeaseKeyPair {
  /** `ssh-ed25519 AAAA... comment` */
  publicKey: string;
  /** `-----BEGIN OPENSSH PRIVATE KEY-----` PEM, unencrypted. */
  privateKey: string;
  /** SHA-256 (base64) of the guest's SSH host key, pinned at the lease's first connection. */
  hostKey?: string;
}

function sshString(data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export function generateLeaseKeyPair(comment: string): LeaseKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url');
  const pubBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4).readUInt32BE();
  let priv = Buffer.concat([uint32(check), uint32(check), sshString('ssh-ed25519'), sshString(pub), sshString(Buffer.concat([seed, pub])), sshString(comment)]);
  const pad: number[] = [];
  for (let i = 1; (priv.length + pad.length) % 8 !== 0; i++) pad.push(i);
  priv = Buffer.concat([priv, Buffer.from(pad)]);
  const blob = Buffer.concat([
    Buffer.from('openssh-key-v1\0'), sshString('none'), sshString('none'), sshString(''), uint32(1), sshString(pubBlob), sshString(priv),
  ]);
  const b64 = blob.toString('base64').replace(/.{1,70}/g, '$&\n');
  return {
    publicKey: `ssh-ed25519 ${pubBlob.toString('base64')} ${comment}`,
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${b64}-----END OPENSSH PRIVATE KEY-----\n`,
  };
}

