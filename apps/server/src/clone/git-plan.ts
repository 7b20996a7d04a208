/**
 * How git is told to connect to exactly the addresses the policy checked, so a name that
 * resolves differently a moment later (DNS rebinding) changes nothing:
 * - curl transports (http, https, ftp, ftps): `http.curloptResolve` pins host:port to the checked
 *   addresses; the URL keeps the name, so Host, SNI and certificate checks are those of the name;
 * - git://: the URL names the checked address itself (git's TCP client would resolve again);
 * - ssh: `-o HostName=<address>` with `HostKeyAlias=<host>`, so known_hosts still checks the name.
 * Redirects are never followed by git (clone.ts follows them itself, through the whole policy),
 * and a credential is scoped to its origin: a header, or (per-lease tokens) a credential-store
 * file git's helper reads for that origin only, so not even the environment holds the token. All
 * of it goes through GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n, never argv, so `ps`
 * shows no token.
 */
import type { ScopedCredential } from './credentials.ts';
import type { CloneTarget } from './policy.ts';
import { formatCloneUrl } from './url.ts';

export interface GitPlan {
  /** The URL handed to git. */
  url: string;
  /** Added to git's environment. */
  env: Record<string, string>;
}

export function gitPlan(target: CloneTarget, credential?: ScopedCredential): GitPlan {
  const u = target.url;
  const config: Array<[string, string]> = [['http.followRedirects', 'false']];
  const env: Record<string, string> = {};
  let url = formatCloneUrl(u);
  // One address for transports that take one: IPv4 first, as it is the one most often reachable.
  const single = target.addresses.find((a) => !a.includes(':')) ?? target.addresses[0];
  if (!u.literal && single !== undefined) {
    if (u.transport === 'curl') config.push(['http.curloptResolve', `${u.host}:${target.port}:${target.addresses.map(bracket).join(',')}`]);
    else if (u.transport === 'git') url = formatCloneUrl(u, single);
    else if (u.transport === 'ssh') env.GIT_SSH_COMMAND = `ssh -o HostName=${single} -o HostKeyAlias=${u.host}`;
  }
  if (credential?.storeFile) config.push([`credential.${credential.origin}.helper`, ''], [`credential.${credential.origin}.helper`, `store --file=${credential.storeFile}`]);
  else if (credential) config.push([`http.${credential.origin}/.extraHeader`, credential.header]);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  env.GIT_CONFIG_COUNT = String(config.length);
  return { url, env };
}

function bracket(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
