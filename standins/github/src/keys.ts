/**
 * RSA key pairs shaped like the ones GitHub hands out for an App: the private key as PKCS#1 PEM
 * (`-----BEGIN RSA PRIVATE KEY-----`, what "Generate a private key" downloads), the public key
 * as SPKI PEM. For tests: the stand-in verifies JWTs with the public half.
 */
import { generateKeyPairSync } from 'node:crypto';

export interface AppKeyPair {
  /** PKCS#1 PEM, `-----BEGIN RSA PRIVATE KEY-----`. */
  privateKeyPem: string;
  /** SPKI PEM, `-----BEGIN PUBLIC KEY-----`. */
  publicKeyPem: string;
}

/** A fresh 2048-bit RSA key pair (~50–200 ms). */
export function makeAppKeyPair(): AppKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}
