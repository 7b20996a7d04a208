/**
 * AdapterSession.installGitCredential for POSIX guests with git: the secret goes through stdin
 * into `$HOME/.config/vmhub/git-credentials/<name>` (umask 077: the file 0600, its folders 0700,
 * owned by the session's user), in git's credential-store format, and the repository's own config
 * names git's `store` helper for exactly that URL (`credential.<url>.helper`, after an empty value
 * that drops helpers configured elsewhere for it, with `useHttpPath` so no other repository of the
 * same host matches). The secret is in no argv, no environment and not in `.git/config`. A failure
 * removes what the script wrote, so nothing half-installed remains.
 */
import type { AdapterContext } from '../adapter.ts';
import type { AdapterErrors } from './errors.ts';
import type { Guest } from './guest.ts';

const INSTALL_SCRIPT = [
  'set -e; umask 077',
  'dir="$HOME/.config/vmhub/git-credentials"; file="$dir/$2"',
  'undo() { rm -f -- "$file" "$file.new"; git -C "$1" config --local --remove-section "credential.$3" 2>/dev/null || true; }',
  'trap \'s=$?; [ "$s" = 0 ] || undo "$@"; exit $s\' EXIT',
  'mkdir -p -- "$dir"',
  'cat > "$file.new"; mv -f -- "$file.new" "$file"',
  'git -C "$1" config --local --remove-section "credential.$3" 2>/dev/null || true',
  'git -C "$1" config --local --add "credential.$3.helper" ""',
  'git -C "$1" config --local --add "credential.$3.helper" "store --file=$file"',
  'git -C "$1" config --local "credential.$3.useHttpPath" true',
].join('\n');

export interface GitCredential {
  /** The repository's folder in the guest (absolute). */
  repo: string;
  /** `scheme://host[:port]/path` of the repository: the only URL the credential answers. */
  url: string;
  username: string;
  secret: string;
}

/** The credential-store line for `url`: userinfo percent-encoded, as git writes it. */
export function credentialStoreLine(url: string, username: string, secret: string): string {
  const u = new URL(url);
  return `${u.protocol}//${encodeURIComponent(username)}:${encodeURIComponent(secret)}@${u.host}${u.pathname.replace(/^\//, '') ? u.pathname : ''}\n`;
}

/** A file name for the URL's credential: host and path, nothing a shell or a path could misread. */
export function credentialFileName(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname}`.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 200) || 'credential';
}

/** Install `credential` with the session's guest runner (which runs as the session's user). */
export async function installGitCredential(ctx: AdapterContext, credential: GitCredential, errors: AdapterErrors, guest: () => Promise<Guest>): Promise<void> {
  errors.throwIfCancelled(ctx.signal, 'clone_repo');
  const u = new URL(credential.url);
  if (u.username || u.password || u.search || u.hash) throw errors.error('INVALID_REQUEST', 'a git credential URL carries no userinfo, query or fragment');
  const url = `${u.protocol}//${u.host}${u.pathname}`;
  const runner = await guest();
  await runner.sh(INSTALL_SCRIPT, [credential.repo, credentialFileName(url), url], {
    needs: ['git'],
    stdin: credentialStoreLine(url, credential.username, credential.secret),
    label: 'git credential install',
  });
}
