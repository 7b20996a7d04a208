/**
 * /ui/sign-in.js — the sign-in page's script (ui/sign-in-page.ts says when it submits by itself).
 * Takes a token from the address (`#token=…`, or the older `?token=…`), removes it from the
 * address bar and the history, fills the form and submits it only when the form says
 * `data-auto="1"`; otherwise the person confirms with the button.
 */
function signIn(): void {
  const form = document.getElementById('sign-in') as HTMLFormElement | null;
  if (!form) return;
  const field = form.elements.namedItem('token') as HTMLInputElement;
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const query = new URLSearchParams(location.search);
  const token = hash.get('token') || query.get('token');
  if (!token) { field.focus(); return; }
  // The token leaves the address bar and the history before anything else happens.
  history.replaceState(null, '', location.pathname);
  field.value = token;
  if (form.getAttribute('data-auto') === '1') { form.submit(); return; }
  (document.getElementById('sign-in-confirm') as HTMLElement).hidden = false;
  form.querySelector('button')!.focus();
}

signIn();
