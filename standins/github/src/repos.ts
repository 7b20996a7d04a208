/**
 * Bare repositories on disk, `<root>/<owner>/<repo>.git`, made with the real git CLI:
 * `git init --bare -b main`, then an initial commit made in a scratch work tree and pushed in.
 * Each gets a `post-receive` hook appending git's "<old> <new> <ref>" lines to
 * `standin-pushes.log` inside the bare repository; `readNewPushes` turns new lines into
 * PushRecords — so `standin.pushes` lists exactly the ref updates git accepted.
 *
 * git runs with an environment of its own (no user or system config, fixed identity), so the
 * machine's ~/.gitconfig cannot change what the stand-in creates.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { PushRecord } from './types.ts';

const run = promisify(execFile);

/** `owner/repo` with GitHub's allowed characters; anything else is refused. */
export const NAME_PART = /^[A-Za-z0-9_.-]+$/;

export function splitFullName(fullName: string): [string, string] {
  const parts = fullName.split('/');
  if (parts.length !== 2 || !parts.every((p) => NAME_PART.test(p) && p !== '.' && p !== '..')) {
    throw new Error(`github-standin: not an owner/repo name: ${JSON.stringify(fullName)}`);
  }
  return [parts[0]!, parts[1]!.replace(/\.git$/, '')];
}

export function repoDir(root: string, fullName: string): string {
  const [owner, repo] = splitFullName(fullName);
  return join(root, owner, `${repo}.git`);
}

export const PUSH_LOG = 'standin-pushes.log';

/** The environment every git the stand-in runs gets: no inherited config, a fixed identity. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'github-standin',
    GIT_AUTHOR_EMAIL: 'standin@example.invalid',
    GIT_COMMITTER_NAME: 'github-standin',
    GIT_COMMITTER_EMAIL: 'standin@example.invalid',
  };
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/** Creates the bare repository with one commit on `main`; resolves with its HEAD. */
export async function createBareRepo(root: string, fullName: string, files: Record<string, string>, home: string): Promise<{ path: string; headSha: string }> {
  const path = repoDir(root, fullName);
  if (await exists(path)) throw new Error(`github-standin: ${fullName} exists already`);
  const env = gitEnv(home);
  await mkdir(dirname(path), { recursive: true });
  await run('git', ['init', '-q', '--bare', '--initial-branch=main', path], { env });
  const hook = join(path, 'hooks', 'post-receive');
  await writeFile(hook, `#!/bin/sh\n# github-standin: record accepted ref updates ("<old> <new> <ref>" lines)\ncat >> ${PUSH_LOG}\n`);
  await chmod(hook, 0o755);

  const work = await mkdtemp(join(tmpdir(), 'github-standin-init-'));
  try {
    await run('git', ['init', '-q', '--initial-branch=main', work], { env });
    for (const [file, content] of Object.entries(files)) {
      const target = join(work, file);
      if (!target.startsWith(`${work}/`)) throw new Error(`github-standin: file outside the repository: ${file}`);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
    await run('git', ['-C', work, 'add', '-A'], { env });
    await run('git', ['-C', work, 'commit', '-q', '--allow-empty', '-m', 'Initial commit'], { env });
    await run('git', ['-C', work, 'push', '-q', path, 'main:main'], { env });
    const { stdout } = await run('git', ['-C', work, 'rev-parse', 'HEAD'], { env });
    // The initial push ran the hook too; that commit is not a client's push.
    await rm(join(path, PUSH_LOG), { force: true });
    return { path, headSha: stdout.trim() };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Ref updates appended to the repository's push log since `offset` bytes; returns the new offset. */
export async function readNewPushes(path: string, fullName: string, offset: number, at: string): Promise<{ pushes: PushRecord[]; offset: number }> {
  const buf = await readFile(join(path, PUSH_LOG)).catch(() => Buffer.alloc(0));
  const lines = buf.subarray(offset).toString('utf8').split('\n').filter(Boolean);
  const pushes = lines.map((line) => {
    const [oldSha = '', newSha = '', ref = ''] = line.trim().split(/\s+/);
    return { repo: fullName, ref, oldSha, newSha, at };
  });
  return { pushes, offset: buf.length };
}
