/**
 * Bearer tokens of the HTTP transport, one per principal (the agent or team a token stands for).
 * Tokens come from env vars named in config (`http.token_env` is the principal "default",
 * `http.tokens[]` the named ones), never from the config file. Only SHA-256 digests are kept, and
 * a presented token is compared with every digest in constant time, so neither the match nor
 * which principal matched shows in the timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { VmhubError } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';

export const DEFAULT_PRINCIPAL = 'default';

export interface PrincipalToken {
  principal: string;
  token: string;
}

export interface Credential {
  principal: string;
  /** SHA-256 of the token; also names the credential (a session is bound to it). */
  digest: Buffer;
}

/** The principals and their tokens that `http` names, read from `env`; throws naming a bad entry. */
export function principalTokens(http: VmhubConfig['http'], env: NodeJS.ProcessEnv): PrincipalToken[] {
  const out: PrincipalToken[] = [];
  const fallback = env[http.token_env];
  if (fallback) out.push({ principal: DEFAULT_PRINCIPAL, token: fallback });
  http.tokens.forEach((entry, i) => {
    const token = env[entry.token_env];
    if (!token) throw new VmhubError('INVALID_REQUEST', `[vmhub] http.tokens[${i}] (principal "${entry.principal}"): env var ${entry.token_env} is not set or empty`, { source: 'config', hint: `Set ${entry.token_env} in the server's environment, or remove the entry.` });
    out.push({ principal: entry.principal, token });
  });
  return out;
}

export class Credentials {
  readonly #list: Credential[];

  constructor(tokens: readonly PrincipalToken[]) {
    const principals = new Set<string>();
    const digests = new Set<string>();
    this.#list = tokens.map(({ principal, token }) => {
      const digest = sha256(token);
      if (principals.has(principal)) throw new VmhubError('INVALID_REQUEST', `[vmhub] http: principal "${principal}" is named twice (http.tokens, or "default" for ${'$'}VMHUB_HTTP_TOKEN)`, { source: 'config' });
      if (digests.has(digest.toString('hex'))) throw new VmhubError('INVALID_REQUEST', `[vmhub] http: principal "${principal}" has the same token as another principal: give each its own`, { source: 'config' });
      principals.add(principal);
      digests.add(digest.toString('hex'));
      return { principal, digest };
    });
  }

  get size(): number { return this.#list.length; }
  get principals(): string[] { return this.#list.map((c) => c.principal); }

  /** The credential a request's Authorization header presents, if it is one of ours. */
  match(authorization: string | undefined): Credential | undefined {
    const token = bearerToken(authorization);
    const digest = sha256(token ?? '');
    let found: Credential | undefined;
    for (const c of this.#list) if (timingSafeEqual(c.digest, digest) && token !== undefined) found = c;
    return found;
  }

  /** Whether this credential (same principal, same token) is still valid. */
  has(credential: Credential): boolean {
    return this.#list.some((c) => c.principal === credential.principal && c.digest.equals(credential.digest));
  }
}

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme is case-insensitive
 * (RFC 9110 §11.1: `bearer`, `BEARER`); one or more spaces or tabs separate it from the token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(header ?? '');
  return m?.[1];
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
