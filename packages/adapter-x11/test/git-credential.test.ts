/**
 * x11: vm_clone_repo {push: true}'s guest side, the kit's installGitCredential, run through the
 * x11 session on the host channel with real git: the secret lands 0600 in the user's home (in no
 * argv and not in .git/config), git answers it for exactly that repository's URL and for no other
 * path of the same host, a second install replaces the first, and a failure leaves nothing.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHostChannel } from '@vmhub/test-kit/host-channel';
import { createX11Adapter } from '../src/index.ts';
import { openLease } from './context.ts';

const TOKEN = `ghs_${'Zq9'.repeat(12)}`;
const URL_A = 'http://172.17.0.1:8123/acme/app.git';

function fill(home: string, repo: string, url: string): string {
  const u = new URL(url);
  const input = `protocol=${u.protocol.slice(0, -1)}\nhost=${u.host}\npath=${u.pathname.slice(1)}\n\n`;
  // git exits 128 when no helper answers and it may not prompt: that is "nothing".
  try {
    return execFileSync('git', ['-C', repo, '-c', 'credential.interactive=false', 'credential', 'fill'], { input, env: { PATH: process.env.PATH, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '/bin/false' }, stdio: ['pipe', 'pipe', 'ignore'] }).toString();
  } catch (err) {
    if ((err as { status?: number }).status === 128) return '';
    throw err;
  }
}

describe('x11: installGitCredential (the kit\'s, on the host channel)', () => {
  const home = mkdtempSync(join(tmpdir(), 'vmhub-x11-cred-'));
  after(() => rmSync(home, { recursive: true, force: true }));
  const repo = join(home, 'app');
  mkdirSync(repo);
  execFileSync('git', ['init', '-q', repo]);
  const channel = createHostChannel({ home, env: { HOME: home } });

  it('installs the secret 0600 for exactly that URL; git answers it there and nowhere else', async () => {
    const { session, ctx } = await openLease(createX11Adapter({ display: ':99' }), channel, { display: ':99' });
    await session.installGitCredential!(ctx, { repo, url: URL_A, username: 'x-access-token', secret: TOKEN });
    const dir = join(home, '.config', 'vmhub', 'git-credentials');
    const [file] = readdirSync(dir);
    assert.equal(statSync(join(dir, file!)).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(readFileSync(join(dir, file!), 'utf8'), `http://x-access-token:${TOKEN}@172.17.0.1:8123/acme/app.git\n`);
    const config = readFileSync(join(repo, '.git', 'config'), 'utf8');
    assert.ok(!config.includes(TOKEN) && config.includes(`[credential "${URL_A}"]`), '.git/config names the helper, not the token');
    assert.ok(!channel.calls.flat().some((a) => a.includes(TOKEN)), 'no argv carried the token');
    assert.match(fill(home, repo, URL_A), new RegExp(`password=${TOKEN}`));
    assert.doesNotMatch(fill(home, repo, 'http://172.17.0.1:8123/acme/other.git'), /password=ghs_/, 'another repository of the host gets nothing');
    await session.dispose();
  });

  it('a second install replaces the first; a failing one leaves nothing behind', async () => {
    const { session, ctx } = await openLease(createX11Adapter({ display: ':99' }), channel, { display: ':99' });
    const next = `ghs_${'Nw4'.repeat(12)}`;
    await session.installGitCredential!(ctx, { repo, url: URL_A, username: 'x-access-token', secret: next });
    assert.match(fill(home, repo, URL_A), new RegExp(`password=${next}`));
    assert.equal((readFileSync(join(repo, '.git', 'config'), 'utf8').match(/\[credential /g) ?? []).length, 1, 'one section, replaced');
    const url = 'http://172.17.0.1:8123/acme/gone.git';
    await assert.rejects(session.installGitCredential!(ctx, { repo: join(home, 'not-a-repo'), url, username: 'x-access-token', secret: TOKEN }));
    assert.ok(!readdirSync(join(home, '.config', 'vmhub', 'git-credentials')).some((f) => f.includes('gone')), 'the failed install removed its file');
    await assert.rejects(session.installGitCredential!(ctx, { repo, url: 'http://u:p@h/acme/x.git', username: 'x', secret: 's' }), /no userinfo/);
    await session.dispose();
  });
});
