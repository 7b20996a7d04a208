/**
 * A git repository served by `git daemon` on loopback, for the vm_clone_repo tests on real guests.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitPort } from '@vmhub/test-kit';

const run = promisify(execFile);
const AUTHOR = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

export interface GitWork {
  /** git `argv` in the work tree; its stdout. */
  git(...argv: string[]): Promise<string>;
  /** Write `files` (path → text) into the work tree and commit them all. */
  commit(files: Record<string, string>, message: string): Promise<void>;
}

export interface ServedRepo {
  /** git://127.0.0.1:<port>/repo.git */
  url: string;
  port: number;
  stop(): void;
}

/**
 * `files` committed on `main` in a work tree under `<dir>/git/src`; `more(work)` adds what a test
 * needs beside (tags, branches); then a bare clone `<dir>/git/repo.git` served by `git daemon`
 * on a free 127.0.0.1 port, resolved once it listens.
 */
export async function serveGitRepo(dir: string, files: Record<string, string>, more: (work: GitWork) => Promise<void> = async () => {}): Promise<ServedRepo> {
  const base = join(dir, 'git');
  const src = join(base, 'src');
  mkdirSync(src, { recursive: true });
  await run('git', ['init', '-q', '-b', 'main', src]);
  const work: GitWork = {
    git: async (...argv) => (await run('git', ['-C', src, ...argv], { env: { ...process.env, ...AUTHOR } })).stdout,
    commit: async (add, message) => {
      for (const [path, text] of Object.entries(add)) {
        mkdirSync(dirname(join(src, path)), { recursive: true });
        writeFileSync(join(src, path), text);
      }
      await work.git('add', '.');
      await work.git('commit', '-qm', message);
    },
  };
  await work.commit(files, 'first');
  await more(work);
  await run('git', ['clone', '-q', '--bare', src, join(base, 'repo.git')]);
  const port = await freePort();
  const daemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', `--base-path=${base}`, '--listen=127.0.0.1', `--port=${port}`, base], { stdio: 'ignore' });
  await waitPort(port, 10_000, () => daemon.exitCode !== null);
  return { url: `git://127.0.0.1:${port}/repo.git`, port, stop: () => { daemon.kill(); } };
}
