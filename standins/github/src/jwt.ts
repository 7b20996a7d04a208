/**
 * App authentication as GitHub does it: `Authorization: Bearer <JWT>`, RS256, signed with one of
 * the App's private keys. Checks, in this order, each failure a 401 with GitHub's message:
 *   1. three base64url parts, header `alg: RS256`, JSON header and payload — else
 *      "A JSON web token could not be decoded";
 *   2. `iss` is the App id (number or decimal string) or its client ID — else "Integration not found";
 *   3. the RS256 signature verifies with the App's public key — else "A JSON web token could not be decoded";
 *   4. `iat` is an integer at most 60 s in the future (GitHub allows that much clock drift);
 *   5. `exp` is a number after now;
 *   6. `exp` is at most 10 minutes after `iat` — "'Expiration time' claim ('exp') is too far in the future".
 * `signAppJwt` makes such tokens for tests.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { MESSAGES } from './errors.ts';

export interface JwtApp {
  id: number;
  clientId?: string;
  publicKey: KeyObject;
}

export type JwtCheck = { ok: true; claims: Record<string, unknown> } | { ok: false; message: string };

const B64URL = /^[A-Za-z0-9_-]+$/;

function decodePart(part: string): Record<string, unknown> | undefined {
  if (!B64URL.test(part)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The public key object for an App given either half of its pair as PEM. */
export function appPublicKey(pem: { publicKeyPem?: string; privateKeyPem?: string }): KeyObject {
  if (pem.publicKeyPem) return createPublicKey(pem.publicKeyPem);
  if (pem.privateKeyPem) return createPublicKey(createPrivateKey(pem.privateKeyPem));
  throw new Error('github-standin: app.publicKeyPem or app.privateKeyPem is required');
}

/** Checks `jwt` for `app` at `nowSec` (seconds since the epoch). */
export function verifyAppJwt(jwt: string, app: JwtApp, nowSec: number): JwtCheck {
  const parts = jwt.split('.');
  if (parts.length !== 3 || !B64URL.test(parts[2]!)) return { ok: false, message: MESSAGES.jwtUndecodable };
  const header = decodePart(parts[0]!);
  const claims = decodePart(parts[1]!);
  if (!header || !claims || header.alg !== 'RS256') return { ok: false, message: MESSAGES.jwtUndecodable };

  const iss = claims.iss;
  const issMatches = iss === app.id || (typeof iss === 'string' && (iss === String(app.id) || (app.clientId !== undefined && iss === app.clientId)));
  if (!issMatches) return { ok: false, message: MESSAGES.integrationNotFound };

  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (!verify('sha256', signed, app.publicKey, Buffer.from(parts[2]!, 'base64url'))) return { ok: false, message: MESSAGES.jwtUndecodable };

  const { iat, exp } = claims;
  if (typeof iat !== 'number' || !Number.isInteger(iat) || iat > nowSec + 60) return { ok: false, message: MESSAGES.jwtIat };
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= nowSec) return { ok: false, message: MESSAGES.jwtExpPast };
  if (exp - iat > 600) return { ok: false, message: MESSAGES.jwtExpTooFar };
  return { ok: true, claims };
}

export interface SignAppJwtOptions {
  /** `iss`; default the App id given. */
  iss?: number | string;
  /** Seconds since the epoch; default now − 30 (GitHub's advice: backdate a little). */
  iat?: number;
  /** Default `iat + 540`. */
  exp?: number;
  /** Header `alg`; default RS256 (anything else is only for testing refusals; the signature stays RS256). */
  alg?: string;
  /** Clock in ms; default `Date.now()`. */
  nowMs?: number;
}

/** An App JWT as a GitHub App would make it: RS256 over `{ iat, exp, iss }` with the App's private key. */
export function signAppJwt(privateKeyPem: string, appId: number | string, options: SignAppJwtOptions = {}): string {
  const now = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const iat = options.iat ?? now - 30;
  const exp = options.exp ?? iat + 540;
  const header = Buffer.from(JSON.stringify({ alg: options.alg ?? 'RS256', typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ iat, exp, iss: options.iss ?? appId })).toString('base64url');
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), createPrivateKey(privateKeyPem)).toString('base64url');
  return `${header}.${payload}.${signature}`;
}
