/**
 * Runs git for a host-side clone and turns its failures into typed errors. A redirect that git
 * refused (http.followRedirects=false) comes back as GitRedirect, for clone.ts to judge.
 */
import { spawn } from 'node:child_process';
import { VmhubError } from '@vmhub/core';
import { scrubText } from '../scrub.ts';

/** Git stopped at an HTTP redirect; `status` as git printed it. */
export class GitRedirect extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`git stopped at an HTTP ${status} redirect`);
    this.status = status;
  }
}

export function runGit(args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: Math.max(1, timeoutMs) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { if (out.length < 1e6) out += d; });
    child.stderr.on('data', (d) => { if (err.length < 20_000) err += d; });
    child.on('error', (e) => reject(new VmhubError('INTERNAL', `git is not available on the vmhub host: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(out);
      const verb = args[0] === '-C' ? args[2] : args[0];
      if (signal) return reject(new VmhubError('TIMEOUT', `git ${verb} did not finish within ${Math.round(timeoutMs / 1000)} s (clone.timeout_seconds)`));
      const redirect = /returned error: (30[1-8])\b/.exec(err) ?? (/unable to update url base from redirection/.test(err) ? ['', '302'] : null);
      if (redirect) return reject(new GitRedirect(Number(redirect[1])));
      const typed = /not found|does not exist|Could not find remote branch|couldn't find remote ref|Repository not found/i.test(err) ? 'NOT_FOUND' : 'INVALID_REQUEST';
      // git quotes the URL it was given: its userinfo and query values become `***` (scrub.ts).
      reject(new VmhubError(typed, `git ${verb} failed: ${scrubText(err.trim().split('\n').slice(-3).join(' '))}`));
    });
  });
}
