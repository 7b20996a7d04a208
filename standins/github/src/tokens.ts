/**
 * Installation tokens: minting (two formats), lookup, expiry and revocation.
 *
 * Formats:
 *   - classic (default): `ghs_` + 36 characters [A-Za-z0-9], 40 in all;
 *   - long (`longTokens: true`): `ghs_<APPID>_<JWT>`, the stateless format GitHub began rolling out
 *     on 2026-04-27 (stated in the description of apps/create-installation-access-token in
 *     github/rest-api-description). GitHub's JWT payload is not documented; here it is an RS256 JWT
 *     signed by a key of the stand-in's own over `{ iss: app id, sub: installation id, iat, exp, jti }`,
 *     about 520 characters, with `.`, `-` and `_` in it — what a client must carry unharmed
 *     (headers, git credentials, env vars). The stand-in still keeps state: revocation works.
 *
 * A record's `token` property is non-enumerable, so `console.log(record)`, `JSON.stringify` and
 * assertion diffs show `redacted` (`ghs_…wxyz`) instead of the secret.
 */
import { generateKeyPairSync, randomBytes, randomInt, sign, type KeyObject } from 'node:crypto';
import type { Permissions, RevocationRecord, TokenRecord } from './types.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function classicToken(): string {
  let s = 'ghs_';
  for (let i = 0; i < 36; i++) s += ALNUM[randomInt(ALNUM.length)];
  return s;
}

/** `ghs_…` + the last four characters. */
export function redact(token: string): string {
  return `${token.slice(0, 4)}…${token.slice(-4)}`;
}

function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export interface MintRequest {
  installationId: number;
  repositories: string[];
  permissions: Permissions;
}

export class TokenStore {
  readonly records: TokenRecord[] = [];
  readonly revocations: RevocationRecord[] = [];
  private readonly byToken = new Map<string, { record: TokenRecord; index: number }>();
  private signingKey: KeyObject | undefined;
  private readonly appId: number;
  private readonly long: boolean;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: { appId: number; long: boolean; ttlMs: number; now: () => number }) {
    this.appId = options.appId;
    this.long = options.long;
    this.ttlMs = options.ttlMs;
    this.now = options.now;
  }

  private longToken(installationId: number, iat: number, exp: number): string {
    this.signingKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ iss: this.appId, sub: installationId, iat, exp, jti: randomBytes(16).toString('hex') })).toString('base64url');
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), this.signingKey).toString('base64url');
    return `ghs_${this.appId}_${header}.${payload}.${signature}`;
  }

  mint(request: MintRequest): TokenRecord {
    const nowMs = this.now();
    const expiresMs = nowMs + this.ttlMs;
    const token = this.long ? this.longToken(request.installationId, Math.floor(nowMs / 1000), Math.floor(expiresMs / 1000)) : classicToken();
    const record = {
      redacted: redact(token),
      installationId: request.installationId,
      repositories: [...request.repositories],
      permissions: { ...request.permissions },
      createdAt: isoSeconds(nowMs),
      expiresAt: isoSeconds(expiresMs),
    } as TokenRecord;
    Object.defineProperty(record, 'token', { value: token, enumerable: false });
    this.byToken.set(token, { record, index: this.records.length });
    this.records.push(record);
    return record;
  }

  /** The record when `token` is one of ours, revoked or not. */
  find(token: string): TokenRecord | undefined {
    return this.byToken.get(token)?.record;
  }

  /** The record when `token` is ours, not revoked and not expired. */
  live(token: string): TokenRecord | undefined {
    const record = this.find(token);
    if (!record || record.revokedAt !== undefined) return undefined;
    return Date.parse(record.expiresAt) > this.now() ? record : undefined;
  }

  revoke(token: string): RevocationRecord | undefined {
    const hit = this.byToken.get(token);
    if (!hit || hit.record.revokedAt !== undefined) return undefined;
    const at = isoSeconds(this.now());
    hit.record.revokedAt = at;
    const revocation: RevocationRecord = { index: hit.index, installationId: hit.record.installationId, redacted: hit.record.redacted, at };
    this.revocations.push(revocation);
    return revocation;
  }

  expire(token: string): void {
    const record = this.find(token);
    if (!record) throw new Error('github-standin: expire(): not a token this stand-in minted');
    record.expiresAt = isoSeconds(this.now() - 1000);
  }
}
