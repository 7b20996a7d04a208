/**
 * The server's GitHub App, when `github_app` is configured: the App (app.ts) and the refresher
 * that keeps each lease's token alive past its hour (refresh.ts), which installs fresh tokens
 * through the lease's adapter session. Made with the runtime; its timers stop with it.
 */
import type { VmhubConfig } from '@vmhub/core/config';
import type { Store } from '@vmhub/store';
import { VmhubError } from '@vmhub/core';
import { log } from '../log.ts';
import type { LeaseSessions } from '../sessions/lease-sessions.ts';
import { GithubApp } from './app.ts';
import { TokenRefresh } from './refresh.ts';

export interface GithubRuntime {
  app: GithubApp;
  tokens: TokenRefresh;
}

export function githubRuntime(config: VmhubConfig, store: Store, sessions: LeaseSessions, env: NodeJS.ProcessEnv = process.env): GithubRuntime | undefined {
  if (!config.github_app) return undefined;
  const app = new GithubApp(config.github_app, env);
  const tokens = new TokenRefresh({
    app, store, log,
    ...(config.github_app.refresh_before_seconds !== undefined ? { marginMs: config.github_app.refresh_before_seconds * 1000 } : {}),
    async install(leaseId, credential) {
      const b = await sessions.bind(leaseId, AbortSignal.timeout(120_000), undefined);
      if (!b.session?.installGitCredential) throw new VmhubError('CAPABILITY_UNAVAILABLE', `lease ${leaseId}'s adapter no longer installs git credentials`);
      await b.session.installGitCredential(b.context, credential);
    },
  });
  return { app, tokens };
}
