/**
 * Build path (b): debootstrap a minimal Debian, run setup-rootfs.sh in a chroot, and
 * `docker import` the tree through the Engine API. Needs root, debootstrap and Debian's mirror,
 * but no image registry. Downloaded .debs are kept in CACHE_DIR so a rebuild is fast.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { VmhubError } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { imageEnv, imageLabels, setupEnv, type Golden } from './golden-manifest.ts';
import { readProgress } from './golden-import.ts';
import { buildCancelled } from './golden-lock.ts';

/** Where downloaded .debs are kept between builds (env VMHUB_GOLDEN_CACHE overrides). */
export const DEFAULT_CACHE_DIR = '/var/cache/vmhub-debootstrap';

function run(argv: string[], log: (line: string) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(buildCancelled(argv[0]!, signal));
    // Its own process group, so a cancel kills what it started too (apt, dpkg in the chroot)
    // before the caller's finally unmounts and removes the tree.
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: signal !== undefined, env: { ...process.env, LC_ALL: 'C', DEBIAN_FRONTEND: 'noninteractive' } });
    const kill = (): void => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } };
    signal?.addEventListener('abort', kill, { once: true });
    const tail: string[] = [];
    const onData = (d: Buffer): void => {
      for (const line of d.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        log(line);
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', (err) => {
      signal?.removeEventListener('abort', kill);
      reject(new VmhubError('PROVISION_FAILED', `[vmhub] [provider-docker] golden build: cannot run ${argv[0]}: ${err.message} (apt-get install -y ${argv[0]})`, { source: 'provider-docker', cause: err }));
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', kill);
      if (signal?.aborted) reject(buildCancelled(argv[0]!, signal));
      else if (code === 0) resolve();
      else reject(new VmhubError('PROVISION_FAILED', `[vmhub] [provider-docker] golden build: ${argv.slice(0, 3).join(' ')} exited ${code}:\n${tail.join('\n')}`, { source: 'provider-docker' }));
    });
  });
}

async function umount(path: string): Promise<void> {
  await run(['umount', '-l', path], () => {}).catch(() => {});
}

export async function buildWithDebootstrap(g: Golden, docker: DockerClient, log: (line: string) => void, cacheDir = process.env.VMHUB_GOLDEN_CACHE || DEFAULT_CACHE_DIR, signal?: AbortSignal): Promise<void> {
  const CACHE_DIR = cacheDir;
  if (process.getuid?.() !== 0) {
    throw new VmhubError('PROVISION_FAILED', '[vmhub] [provider-docker] golden build with debootstrap needs root (chroot, mounts): run it as root, or use method "dockerfile" where a registry is reachable', { source: 'provider-docker' });
  }
  const m = g.manifest;
  if (g.unbuildable) throw new VmhubError('PROVISION_FAILED', `[vmhub] [provider-docker] golden ${m.name} cannot be built here: ${g.unbuildable}`, { source: 'provider-docker' });
  mkdirSync(`${CACHE_DIR}/debootstrap`, { recursive: true });
  mkdirSync(`${CACHE_DIR}/apt/partial`, { recursive: true });
  const work = mkdtempSync('/var/tmp/vmhub-golden-');
  const root = `${work}/rootfs`;
  const mounts: string[] = [];
  try {
    log(`debootstrap ${m.debian.suite} (${m.debian.variant}) from ${m.debian.mirror}`);
    await run(['debootstrap', `--variant=${m.debian.variant}`, `--cache-dir=${CACHE_DIR}/debootstrap`, m.debian.suite, root, m.debian.mirror], log, signal);
    writeFileSync(`${root}/etc/apt/sources.list`, `deb ${m.debian.mirror} ${m.debian.suite} main\ndeb ${m.debian.mirror} ${m.debian.suite}-updates main\ndeb http://deb.debian.org/debian-security ${m.debian.suite}-security main\n`);
    writeFileSync(`${root}/tmp/vmhub-setup.env`, setupEnv(m, { VMHUB_KEEP_APT_CACHE: 'true' }));
    writeFileSync(`${root}/tmp/vmhub-setup-rootfs.sh`, g.scripts.setup);
    writeFileSync(`${root}/tmp/vmhub-session.sh`, g.scripts.session);
    if (g.scripts.golden) writeFileSync(`${root}/tmp/vmhub-golden-setup.sh`, g.scripts.golden);
    for (const f of g.files) {
      const dest = `${root}/tmp/vmhub-files${f.dest}`;
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, f.data);
      chmodSync(dest, f.mode);
    }
    writeFileSync(`${root}/usr/sbin/policy-rc.d`, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    copyFileSync('/etc/resolv.conf', `${root}/etc/resolv.conf`);
    await run(['mount', '-t', 'proc', 'proc', `${root}/proc`], log);
    mounts.push(`${root}/proc`);
    await run(['mount', '--bind', `${CACHE_DIR}/apt`, `${root}/var/cache/apt/archives`], log);
    mounts.push(`${root}/var/cache/apt/archives`);
    log(`installing ${m.packages.length} packages in the chroot`);
    await run(['chroot', root, '/bin/sh', '/tmp/vmhub-setup-rootfs.sh'], log, signal);
    for (const p of mounts.reverse()) await umount(p);
    mounts.length = 0;
    rmSync(`${root}/usr/sbin/policy-rc.d`, { force: true });
    rmSync(`${root}/tmp/vmhub-setup-rootfs.sh`, { force: true });
    writeFileSync(`${root}/etc/resolv.conf`, '');
    rmSync(`${root}/var/cache/apt/archives`, { recursive: true, force: true });
    mkdirSync(`${root}/var/cache/apt/archives/partial`, { recursive: true });

    log(`importing ${g.tag}`);
    if (signal?.aborted) throw buildCancelled('docker import', signal);
    const tar = spawn('tar', ['-C', root, '--numeric-owner', '--xattrs', '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'pipe'], signal });
    tar.on('error', () => undefined); // an abort kills tar; the import request below fails with the cancellation
    let tarErr = '';
    tar.stderr.on('data', (d: Buffer) => { tarErr += d.toString(); });
    const [repo, tag] = g.tag.split(':') as [string, string];
    const changes = [
      `ENTRYPOINT ${JSON.stringify(m.entrypoint)}`,
      ...imageEnv(g).map((e) => `ENV ${e}`),
      `LABEL ${imageLabels(g).map(([k, v]) => `${k}=${v}`).join(' ')}`,
    ];
    const res = await docker.stream('POST', '/images/create', { query: { fromSrc: '-', repo, tag, changes }, body: tar.stdout, timeoutMs: 0, signal });
    await readProgress(res, `docker import of ${g.tag}`, log, signal);
    const code: number | null = tar.exitCode ?? await new Promise((r) => tar.on('close', r));
    if (code !== 0) throw new VmhubError('PROVISION_FAILED', `[vmhub] [provider-docker] golden build: tar of the root filesystem failed: ${tarErr}`, { source: 'provider-docker' });
  } finally {
    for (const p of mounts.reverse()) await umount(p);
    // Never recurse into a mount that failed to come off (it could be the host's /proc or the cache).
    if (readFileSync('/proc/mounts', 'utf8').includes(work)) log(`left ${work} in place: something is still mounted under it`);
    else rmSync(work, { recursive: true, force: true });
  }
}
