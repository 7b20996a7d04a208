/**
 * Credentials out of text, for everything vmhub writes down or echoes: recordings (live/redact.ts
 * builds on this), the server's log lines (log.ts) and clone errors that quote a URL (clone/).
 *
 * `scrubText` keeps the shape of the text and replaces only what can be a credential with `***`:
 * - in a URL (`scheme://…`, anywhere in the text): the userinfo, and every query and fragment
 *   value — `https://user:tok@host/x?access_token=t&ref=main` → `https://***@host/x?access_token=***&ref=***`
 *   (a valueless query item becomes `***`; a fragment without `=`, an anchor like `#L10`, stays);
 * - a value assigned to a secret-like name: `GITHUB_TOKEN=…`, `--password=…`, `"api_key": "…"`
 *   (`isSecretName`), `Authorization: Bearer …` (to the end of the line), `--token …`
 *   (`isStrongSecretName`, which leaves `key: Return` alone);
 * - what follows `Bearer `, and tokens that carry their kind (GitHub's `ghs_…`, `ghp_…`, `github_pat_…`).
 * It is idempotent (`***` scrubs to itself) and errs towards hiding: `monkey=1` reads
 * `monkey=***`, `--session-token x` reads `--session-token ***`. Nothing here decodes anything: a credential in base64 or percent-encoded past
 * these shapes is not found.
 */

/** Name fragments that mark a secret, matched case-insensitively anywhere in a key or variable name. */
export const SECRET_WORDS = ['token', 'secret', 'password', 'passwd', 'passphrase', 'key', 'auth', 'cookie', 'credential', 'session'] as const;
const SECRET_NAME = new RegExp(SECRET_WORDS.join('|'), 'i');
/** What a hidden value reads as inside text. */
export const MASK = '***';

/** True when a key or variable name looks like it holds a secret (`api_key`, `X-Auth-Token`, `sessionid`, `keys`…). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The narrower test for names in prose-like forms (`Name: value`, `--flag value`), where a bare
 * `key` or `session` is mostly a word (`key: Return`, `no Wayland session: …`): a secret word
 * other than those two, or `key`/`session` with a qualifier (`api_key`, `X-Api-Key`,
 * `private-key`, `sessionid`, `session_token`).
 */
const STRONG_NAME = /token|secret|passw|passphrase|auth|cookie|credential|(api|access|private|secret|ssh|signing)[-_.]?key|session[-_.]?(id|key|token)/i;
export function isStrongSecretName(name: string): boolean {
  return STRONG_NAME.test(name);
}

// scheme://[userinfo@]authority-and-path[?query][#fragment]; userinfo is everything up to the last
// "@" before the first "/", "?" or "#" (a password holding "@" is hidden whole).
const URL_RE = /\b([a-z][a-z0-9+.-]*:\/\/)(?:([^\s/?#"'<>`]*)@)?([^\s?#"'<>`]*)(\?[^\s#"'<>`]*)?(#[^\s"'<>`]*)?/gi;
// "name": "value" / 'name': 'value' (JSON and similar, inside a larger string).
const QUOTED_PAIR_RE = /(["'])([\w.-]+)\1(\s*:\s*)(["'])((?:\\.|(?!\4)[^\\\r\n])*)\4/g;
// name=value, quoted or up to a separator: env assignments, --flag=value, form bodies.
const ASSIGN_RE = /(?<![\w.-])([\w.-]+)(\s*=\s*)("[^"\r\n]*"|'[^'\r\n]*'|[^\s&;,"'<>`]+)/g;
// Name: value, to the end of the line (HTTP headers, YAML); a space after the colon is required,
// so `host:path` and `user@keyserver:repo` are not read as one.
const HEADER_RE = /(?<![\w.-])([\w.-]+)(:[ \t]+)("[^"\r\n]*"|'[^'\r\n]*'|[^\r\n"'<>`,}]+)/g;
// --secret-flag value (a following word that is not itself a flag).
const FLAG_RE = /(?<!\S)(--?[\w.-]+)([ \t]+)("[^"\r\n]*"|'[^'\r\n]*'|[^\s"'-][^\s"']*)/g;
const BEARER_RE = /\b(Bearer)(\s+)([^\s"'<>`,;]+)/gi;
// Tokens that say what they are wherever they stand: GitHub's (ghp_ personal, gho_ OAuth, ghu_
// user-to-server, ghs_ installation, ghr_ refresh, github_pat_ fine-grained; the installation
// tokens vmhub mints per lease are ghs_).
const KNOWN_TOKEN_RE = /\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_.-]{16,}/g;

function maskPairs(part: string, bareToo: boolean): string {
  return part.split(/([&;])/).map((item) => {
    if (item === '&' || item === ';' || item === '') return item;
    const eq = item.indexOf('=');
    if (eq < 0) return bareToo ? MASK : item;
    return eq === item.length - 1 ? item : `${item.slice(0, eq)}=${MASK}`;
  }).join('');
}

function scrubUrls(text: string): string {
  return text.replace(URL_RE, (_all, scheme: string, user: string | undefined, rest: string, query: string | undefined, fragment: string | undefined) => {
    let out = `${scheme}${user !== undefined ? `${MASK}@` : ''}${rest}`;
    if (query !== undefined) out += `?${maskPairs(query.slice(1), true)}`;
    if (fragment !== undefined) out += fragment.includes('=') ? `#${maskPairs(fragment.slice(1), false)}` : fragment;
    return out;
  });
}

function quoted(value: string): string {
  const q = value[0];
  return q === '"' || q === "'" ? `${q}${MASK}${q}` : MASK;
}

/** `text` with URL credentials and values of secret-like names replaced by `***` (see the module comment). */
export function scrubText(text: string): string {
  if (text.length === 0) return text;
  let out = scrubUrls(text);
  out = out.replace(QUOTED_PAIR_RE, (all, q: string, name: string, sep: string, vq: string) => (isSecretName(name) ? `${q}${name}${q}${sep}${vq}${MASK}${vq}` : all));
  out = out.replace(ASSIGN_RE, (all, name: string, sep: string, value: string) => (isSecretName(name) ? `${name}${sep}${quoted(value)}` : all));
  out = out.replace(HEADER_RE, (all, name: string, sep: string, value: string) => (isStrongSecretName(name) ? `${name}${sep}${quoted(value)}` : all));
  out = out.replace(FLAG_RE, (all, flag: string, sep: string, value: string) => (isStrongSecretName(flag) ? `${flag}${sep}${quoted(value)}` : all));
  out = out.replace(KNOWN_TOKEN_RE, MASK);
  return out.replace(BEARER_RE, (_all, word: string, sep: string) => `${word}${sep}${MASK}`);
}

/** True when `word` is a command-line flag naming a secret (`--token`, `--password`): the next argv word is its value. */
export function isSecretFlag(word: string): boolean {
  return /^--?[\w.-]+$/.test(word) && isStrongSecretName(word);
}

/**
 * Every string in a JSON-like value run through scrubText, at any depth (plain objects and
 * arrays; keys kept, in order); other values as they are. For log lines, whose keys are vmhub's
 * own (`auth: "bearer"` is no secret), so nothing is hidden by key name here.
 */
export function scrubDeep<T>(value: T): T {
  if (typeof value === 'string') return scrubText(value) as T;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubDeep(v);
  return out as T;
}
