/**
 * One call to GitHub's REST API (or a GitHub Enterprise Server's, `github_app.api_url`): JSON in
 * and out, GitHub's versioned headers, bounded in time, no redirects followed. A failure to reach
 * it is PROVISION_FAILED (retryable); an answer is returned whatever its status, with GitHub's own
 * `message` for the caller's typed error. Authorization values are never put in a message.
 */
import { VmhubError } from '@vmhub/core';

export interface GithubAnswer {
  status: number;
  body: Record<string, unknown>;
  /** GitHub's `message` (or the status text) for errors. */
  message: string;
}

export const DEFAULT_API_URL = 'https://api.github.com';

export async function githubCall(apiUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, authorization: string, body?: unknown, timeoutMs = 15_000): Promise<GithubAnswer> {
  const url = `${apiUrl.replace(/\/+$/, '')}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28', 'User-Agent': 'vmhub',
        Authorization: authorization,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : ((err as { cause?: Error }).cause?.message ?? (err as Error).message);
    throw new VmhubError('PROVISION_FAILED', `GitHub's API at ${new URL(url).host} could not be reached: ${why}`, { source: 'github-app', retryable: true });
  }
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch { /* not JSON: keep the status text */ }
  const message = typeof parsed.message === 'string' ? parsed.message.slice(0, 300) : `${res.status} ${res.statusText}`;
  return { status: res.status, body: parsed, message };
}
