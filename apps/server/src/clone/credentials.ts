/**
 * Host-held clone credentials, chosen for one origin. A key is either a host (`github.com`: that
 * host on whatever scheme and port the clone URL names) or an origin (`https://git.example:8443`:
 * exactly that scheme, host and port). The header is scoped to the origin it was chosen for
 * (git-plan.ts), so no other host — a redirect target, an alternate — ever receives it. A
 * redirect to another origin gets a credential only from a key naming that origin exactly.
 */
import { VmhubError } from '@vmhub/core';
import type { CloneConfig, CloneTarget } from './policy.ts';
import { canonicalHost, defaultPort, parseCloneUrl, schemePort, urlHost } from './url.ts';

type Credentials = CloneConfig['credentials'];

export interface ScopedCredential {
  /** `scheme://host[:port]`, the only origin that gets the header. */
  origin: string;
  /** The header value (secret: goes into git's environment only, or a redirect check's request). */
  header: string;
  /**
   * A git credential-store file (0600, in the clone's private work folder) holding the same
   * credential: git is pointed at it instead of being given the header, so the secret is in no
   * process's environment either. Used for per-lease tokens.
   */
  storeFile?: string;
}

export function originOf(target: CloneTarget): string {
  const u = target.url;
  return `${u.scheme}://${urlHost(u)}${u.port && u.port !== schemePort(u.scheme) ? `:${u.port}` : ''}`;
}

/**
 * The credential for this target's origin: the template's before clone.credentials, an origin
 * key before a host key. `originKeysOnly` for a redirect to another origin: a host key says
 * "this host", and a redirect to another port of it is not what the operator named.
 */
export function credentialFor(target: CloneTarget, template: Credentials, global: Credentials, env: NodeJS.ProcessEnv, originKeysOnly = false): ScopedCredential | undefined {
  if (target.url.transport !== 'curl' || !target.url.scheme.startsWith('http')) return undefined;
  const origin = originOf(target);
  for (const table of [template, global]) {
    const keys = Object.keys(table);
    const key = keys.find((k) => originKey(k) === origin) ?? (originKeysOnly ? undefined : keys.find((k) => hostKey(k) === target.url.host));
    if (key === undefined) continue;
    const cred = table[key]!;
    const token = env[cred.token_env];
    if (!token || /[\0-\x1f\x7f]/.test(token)) throw new VmhubError('INVALID_REQUEST', `credentials for ${key} name env ${cred.token_env}, which is ${token ? 'not a token (it holds control characters)' : 'not set'} on the vmhub host`, { hint: `Set ${cred.token_env} in the vmhub server's environment, or remove the entry from clone.credentials / the template's clone_credentials.` });
    return tokenCredential(origin, { username: cred.username ?? 'x-access-token', secret: token });
  }
  return undefined;
}

/** A credential given for this one origin (a per-lease token), as a basic-auth header. */
export function tokenCredential(origin: string, token: { username: string; secret: string }): ScopedCredential {
  return { origin, header: `Authorization: Basic ${Buffer.from(`${token.username}:${token.secret}`).toString('base64')}` };
}

function originKey(key: string): string | undefined {
  if (!key.includes('://')) return undefined;
  try {
    const u = parseCloneUrl(`${key.replace(/\/+$/, '')}/`);
    return u.form === 'url' ? originOf({ url: u, port: defaultPort(u), addresses: [] }) : undefined;
  } catch { return undefined; }
}

function hostKey(key: string): string | undefined {
  return key.includes('://') ? undefined : canonicalHost(key);
}
