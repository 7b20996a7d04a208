/**
 * vm_clone_repo, host side: the URL is checked against policy, the repository is cloned here
 * with host-held credentials (never in tool arguments, results or the clone's .git/config), and
 * the working tree with .git is streamed into the guest as a tar.
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VmhubError, type ToolInput } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import type { HostClone } from '@vmhub/core/router';

type CloneConfig = VmhubConfig['clone'];

interface ParsedUrl { scheme: string; host: string }

export function checkCloneUrl(url: string, policy: CloneConfig): ParsedUrl {
  if (url.startsWith('-')) throw new VmhubError('INVALID_REQUEST', 'url must not start with "-"');
  if (/[\s\0]/.test(url)) throw new VmhubError('INVALID_REQUEST', 'url must not contain whitespace');
  let parsed: ParsedUrl;
  const scp = /^([A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+):(?!\/\/)(.+)$/.exec(url);
  if (url.startsWith('/') || url.startsWith('.') || url.startsWith('~')) parsed = { scheme: 'file', host: '' };
  else if (scp && !url.includes('://')) parsed = { scheme: 'ssh', host: scp[2]!.toLowerCase() };
  else {
    let u: URL;
    try { u = new URL(url); } catch { throw new VmhubError('INVALID_REQUEST', `url "${url}" is not a git URL (https://host/path, ssh://, git@host:path)`); }
    if (u.username || u.password) throw new VmhubError('INVALID_REQUEST', 'url must not carry credentials: configure them on the host (clone.credentials), never in tool arguments');
    parsed = { scheme: u.protocol.replace(/:$/, '').toLowerCase(), host: u.hostname.toLowerCase().replace(/^\[|\]$/g, '') };
  }
  if (parsed.scheme === 'file') {
    if (!policy.allow_file) throw new VmhubError('POLICY_DENIED', 'file:// and local paths are refused: they would read the server\'s own disk (set clone.allow_file to allow)');
    return parsed;
  }
  if (!policy.allowed_schemes.includes(parsed.scheme)) throw new VmhubError('POLICY_DENIED', `scheme "${parsed.scheme}" is not allowed; allowed: ${policy.allowed_schemes.join(', ')} (clone.allowed_schemes)`);
  if (policy.allowed_hosts.length && !policy.allowed_hosts.includes(parsed.host)) throw new VmhubError('POLICY_DENIED', `host "${parsed.host}" is not allowed; allowed: ${policy.allowed_hosts.join(', ')} (clone.allowed_hosts)`);
  if (!policy.allow_private_hosts && isPrivateHost(parsed.host)) throw new VmhubError('POLICY_DENIED', `host "${parsed.host}" is loopback or private (set clone.allow_private_hosts to allow)`);
  return parsed;
}

function isPrivateHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  if (isIP(host) === 4) {
    const [a, b] = host.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (isIP(host) === 6) return host === '::1' || /^f[cd]/i.test(host) || /^fe80/i.test(host);
  return false;
}

function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { if (out.length < 1e6) out += d; });
    child.stderr.on('data', (d) => { if (err.length < 20_000) err += d; });
    child.on('error', (e) => reject(new VmhubError('INTERNAL', `git is not available on the vmhub host: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(out);
      else if (signal) reject(new VmhubError('TIMEOUT', `git ${argv[1]} did not finish within ${Math.round(timeoutMs / 1000)} s`));
      else reject(new VmhubError(/not found|does not exist|Could not find remote branch|couldn't find remote ref|Repository not found/i.test(err) ? 'NOT_FOUND' : 'INVALID_REQUEST', `git ${argv[1]} failed: ${err.trim().split('\n').slice(-3).join(' ').replace(/(https?:\/\/)[^@/\s]+@/g, '$1***@')}`));
    });
  });
}

async function treeStats(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    bytes += (await stat(join(entry.parentPath, entry.name))).size;
    if (!join(entry.parentPath, entry.name).includes(`${dir}/.git/`) && !join(entry.parentPath, entry.name).startsWith(`${dir}/.git/`)) files++;
  }
  return { files, bytes };
}

export async function cloneOnHost(input: ToolInput<'vm_clone_repo'>, policy: CloneConfig, templateCredentials: CloneConfig['credentials'] = {}, env: NodeJS.ProcessEnv = process.env): Promise<HostClone> {
  const target = checkCloneUrl(input.url, policy);
  const work = await mkdtemp(join(tmpdir(), 'vmhub-clone-'));
  const dest = join(work, 'tree');
  const timeoutMs = policy.timeout_seconds * 1000;
  const gitEnv: NodeJS.ProcessEnv = { PATH: env.PATH, HOME: work, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_ALLOW_PROTOCOL: [...policy.allowed_schemes, ...(policy.allow_file ? ['file'] : [])].join(':') };
  const cred = templateCredentials[target.host] ?? policy.credentials[target.host];
  if (cred) {
    const token = env[cred.token_env];
    if (!token) throw new VmhubError('INVALID_REQUEST', `credentials for ${target.host} name env ${cred.token_env}, which is not set on the vmhub host`);
    const basic = Buffer.from(`${cred.username ?? 'x-access-token'}:${token}`).toString('base64');
    Object.assign(gitEnv, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` });
  }
  try {
    const isSha = input.ref !== undefined && /^[0-9a-f]{7,40}$/i.test(input.ref);
    const argv = ['git', 'clone', '--quiet', '--no-hardlinks'];
    if (input.depth && !isSha) argv.push('--depth', String(input.depth));
    if (input.ref && !isSha) argv.push('--branch', input.ref);
    argv.push('--', input.url, dest);
    await run(argv, work, gitEnv, timeoutMs);
    if (isSha) await run(['git', '-C', dest, 'checkout', '--quiet', '--detach', input.ref!], work, gitEnv, timeoutMs);
    const commit = (await run(['git', '-C', dest, 'rev-parse', 'HEAD'], work, gitEnv, timeoutMs)).trim();
    const { files, bytes } = await treeStats(dest);
    if (bytes > policy.max_bytes) throw new VmhubError('INVALID_REQUEST', `the clone is ${bytes} bytes, over clone.max_bytes ${policy.max_bytes}; use depth or a smaller repository`);
    const tar = spawn('tar', ['-c', '-C', dest, '--numeric-owner', '--owner=0', '--group=0', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
    // Attach a consumer now: when a child exits, Node resumes (and so discards) stdio streams
    // nobody has read yet, and the adapter starts reading only after its own awaits. Seen: a small
    // repository arrived in the guest as an empty directory.
    const archive = tar.stdout.pipe(new PassThrough({ highWaterMark: 1024 * 1024 }));
    return {
      archive,
      commit,
      ...(input.ref ? { ref: input.ref } : {}),
      files,
      cleanup: async () => { tar.kill(); await rm(work, { recursive: true, force: true }); },
    };
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    throw err;
  }
}
