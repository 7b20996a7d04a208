/**
 * The live view's sign-in page (served by live/sign-in.ts for /ui/login, /ui/?token=… and any
 * page asked for without a live sign-in) and its script /ui/sign-in.js, both served without a
 * sign-in. The page is a form that POSTs the token to /ui/login. The script takes a token from
 * the address (`#token=…`, or the older `?token=…`; ui/browser/sign-in.ts), removes it from the address bar and the
 * history, fills the form and submits it itself only when the form says `data-auto="1"` (the
 * server saw a navigation that did not come from another site); otherwise the person confirms
 * with the button, so another site's link cannot sign them in as someone else unnoticed.
 *
 * Unlike the other pages (ui/page.ts: `no-referrer`), this one's referrer policy is
 * `strict-origin`: under `no-referrer` a browser sends its form POST with `Origin: null`, which
 * /ui/login must refuse; `strict-origin` sends the real origin and never the address's path or
 * query (where an older link carries the token).
 */
import { page } from './page.ts';

export type SignInProblem = 'wrong' | 'ended';

const PROBLEMS: Record<SignInProblem, string> = {
  wrong: 'That token is not one this vmhub server accepts (wrong, or revoked by the operator).',
  ended: 'Your sign-in ended (idle too long, past its time limit, its token was revoked, or the server restarted). Sign in again.',
};

export interface SignInPageOptions {
  /** The page to land on after signing in (already checked to be a live-view page). */
  next: string;
  /** Submit a token found in the address without asking. */
  auto: boolean;
  problem?: SignInProblem | undefined;
}

export const SIGN_IN_REFERRER_POLICY = 'strict-origin';

export function signInHtml(o: SignInPageOptions): string {
  return page('vmhub — sign in', '/ui/sign-in.js', `<main class="sign-in">
<h1>Sign in</h1>
${o.problem ? `<p id="sign-in-problem" class="message error">${PROBLEMS[o.problem]}</p>` : ''}
<p>This live view needs your bearer token once: the token of <code>VMHUB_HTTP_TOKEN</code> or of your <code>http.tokens</code> entry. It is sent to this server only, and the browser keeps a random sign-in id instead (an HttpOnly cookie that ends after a while of not being used, and at the latest after a fixed time).</p>
<form id="sign-in" method="post" action="/ui/login" data-auto="${o.auto ? '1' : '0'}">
<input type="hidden" name="next" value="${o.next}">
<label for="token">Bearer token</label>
<input type="password" id="token" name="token" autocomplete="off" required>
<button type="submit" class="primary">Sign in</button>
</form>
<p id="sign-in-confirm" class="message" hidden>This sign-in link was opened from another site. Press Sign in only if you meant to sign in with this token.</p>
</main>
`, { referrer: SIGN_IN_REFERRER_POLICY });
}

/** /ui/sign-in.js, bundled from ui/browser/sign-in.ts (build-ui.mjs). */
export { SIGN_IN_JS } from './assets.generated.ts';
