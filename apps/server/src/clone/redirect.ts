/**
 * Redirects of a clone over HTTP. Git is told not to follow any (git-plan.ts) and then only says
 * "returned error: 302"; this asks the same pinned address for the same first URL git asked for,
 * reads Location, and derives the new repository URL as git would (the redirect must keep the
 * `/info/refs?service=git-upload-pack` tail). clone.ts then runs that URL through the whole
 * policy, as if the agent had asked for it directly.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { VmhubError } from '@vmhub/core';
import { scrubText } from '../scrub.ts';
import type { ScopedCredential } from './credentials.ts';
import type { CloneTarget } from './policy.ts';
import { formatCloneUrl } from './url.ts';

const TAIL = '/info/refs?service=git-upload-pack';

/** The URL git would continue with after the redirect, or undefined when the first request is not redirected. */
export async function redirectTarget(target: CloneTarget, credential: ScopedCredential | undefined, timeoutMs: number): Promise<string | undefined> {
  const base = formatCloneUrl(target.url).replace(/\/+$/, '');
  const asked = `${base}${TAIL}`;
  const res = await get(asked, target, credential, timeoutMs);
  res.destroy();
  if (!res.statusCode || res.statusCode < 300 || res.statusCode > 399) return undefined;
  const location = res.headers.location;
  if (!location) throw denied(target, `answered ${res.statusCode} without a Location`);
  let next: string;
  try { next = new URL(location, asked).href; } catch { throw denied(target, `redirects to "${location.slice(0, 200)}", which is not a URL`); }
  if (!next.endsWith(TAIL)) throw denied(target, `redirects to ${next.slice(0, 200)}, which does not keep the repository path (git would refuse it too)`);
  return next.slice(0, -TAIL.length);
}

/** The refusal of a redirect; URLs in it (the clone's, the target's) with userinfo and query values as `***` (scrub.ts). */
export function denied(target: CloneTarget, why: string, redirectTo?: string): VmhubError {
  return new VmhubError('POLICY_DENIED', scrubText(`vm_clone_repo: ${formatCloneUrl(target.url)} ${why}`), {
    hint: 'Clone the final URL directly if the operator\'s policy allows it: vmhub follows an HTTP redirect only when its target passes the same policy as a direct request, and never carries a credential to another origin.',
    ...(redirectTo ? { details: { redirect_to: scrubText(redirectTo) } } : {}),
  });
}

function get(url: string, target: CloneTarget, credential: ScopedCredential | undefined, timeoutMs: number): Promise<IncomingMessage> {
  const u = target.url;
  const pinned: LookupFunction = (_host, options, callback) => {
    const all = target.addresses.map((address) => ({ address, family: isIP(address) }));
    if ((options as { all?: boolean }).all) (callback as (e: null, a: typeof all) => void)(null, all);
    else callback(null, all[0]!.address, all[0]!.family);
  };
  const headers: Record<string, string> = { 'User-Agent': 'git/2 (vmhub redirect check)', Accept: '*/*', 'Git-Protocol': 'version=2' };
  // The credential was chosen for this very origin (credentialFor), so it may go with the check.
  if (credential) headers.Authorization = credential.header.replace(/^Authorization: /, '');
  const send = u.scheme === 'https' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', headers, lookup: pinned, timeout: Math.min(timeoutMs, 30_000), ...(u.scheme === 'https' && !u.literal ? { servername: u.host } : {}) }, resolve);
    req.on('timeout', () => req.destroy(new VmhubError('TIMEOUT', `vm_clone_repo: ${u.host} did not answer the redirect check in time`)));
    req.on('error', (err) => reject(err instanceof VmhubError ? err : new VmhubError('INVALID_REQUEST', `vm_clone_repo: git reported a redirect from ${u.host}, and asking it again failed: ${err.message}`)));
    req.end();
  });
}
