/**
 * vmhub configuration: environment variables plus an optional JSON file. The server and the
 * reaper read the same configuration, so the reaper reaches the same providers with the same
 * options. Every key is documented in docs/configuration.md; explicit file values win over
 * defaults, and env vars win over the file for the keys they name.
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { readConfigFile } from './config-file.ts';
import { editDistance } from './edit-distance.ts';
import { VmhubError } from './errors.ts';
import { isPluginPath, resolvePluginPath } from './plugin-path.ts';
import { TemplateConfigSchema } from './template.ts';
import { resolveToolsets } from './toolsets.ts';
import { assertValid } from './validate.ts';

const Seconds = (def: number, min = 1) => Type.Integer({ minimum: min, default: def });

export const VmhubConfigSchema = Type.Object({
  /** Identity prefix part: machines are named `vmhub-<instance>-<lease>`. Env VMHUB_INSTANCE. */
  instance: Type.String({ pattern: '^[a-z0-9][a-z0-9_]{0,23}$', default: 'local' }),
  /** SQLite file. Env VMHUB_DB. Default: the user's state dir. */
  db: Type.Optional(Type.String()),
  /** Extra plugins: package names, package directories or entry files (relative paths: from this file's folder). Env VMHUB_PLUGINS (comma-separated; relative to the working directory). */
  plugins: Type.Array(Type.String(), { default: [] }),
  /** Options per provider id, passed to the provider's factory. */
  providers: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), { default: {} }),
  /** Options per adapter id. */
  adapters: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), { default: {} }),
  /** Templates; an entry with a plugin default's id replaces that default. */
  templates: Type.Array(TemplateConfigSchema, { default: [] }),
  /**
   * Also offer stand-in templates (`<os>-standin`: Windows, macOS, Android, Hyprland peers that
   * run here in containers). Env VMHUB_STANDIN_TEMPLATES=1.
   */
  standin_templates: Type.Boolean({ default: false }),
  /** Template ids to hide (plugin defaults you do not want offered). */
  disabled_templates: Type.Array(Type.String(), { default: [] }),
  /**
   * Warm pools, by template id: machines made ready ahead of time and handed whole to the next
   * vm_lease_create on that template (never shared: a released machine is destroyed). They are
   * leases held by the pool, so they count in leases.max_total and the reaper owns them.
   */
  pools: Type.Record(Type.String({ minLength: 1 }), Type.Object({
    /** Ready (or being made) machines the server keeps waiting. */
    min_ready: Type.Integer({ minimum: 0, maximum: 100, default: 1 }),
    /** At most this many pool machines of the template at once. */
    max: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
    /** A pool machine whose server stops holding it expires this long after (the reaper then destroys it). */
    hold_seconds: Seconds(60, 5),
  }), { default: {} }),
  leases: Type.Object({
    /** TTL when vm_lease_create gives none. Env VMHUB_DEFAULT_TTL_SECONDS. */
    default_ttl_seconds: Seconds(3600, 60),
    /** Hard cap from creation; renew never passes it. Env VMHUB_MAX_LIFETIME_SECONDS. */
    max_lifetime_seconds: Seconds(86400, 60),
    /** Live leases one owner may hold. */
    max_per_owner: Type.Integer({ minimum: 1, default: 10 }),
    /** Live leases in this instance. */
    max_total: Type.Integer({ minimum: 1, default: 50 }),
    /** A lease not ready by then is failed (by the server or the reaper). */
    provision_timeout_seconds: Seconds(900),
    /**
     * A server process closes its session to a lease's machine (channels, the adapter's session)
     * after this long without a call, unless it still holds work there: a detached command, a
     * port forward, a live-view viewer, a call in flight. The next call opens a new one. 0: never
     * (until the lease ends). Env VMHUB_LEASE_SESSION_IDLE_SECONDS.
     */
    session_idle_seconds: Seconds(600, 0),
  }, { default: {} }),
  /**
   * Snapshots (vm_snapshot; forks through vm_lease_create {snapshot_id}): kept past their lease
   * until deleted or keep_hours passes (then the reaper deletes them by identity). Over a quota,
   * vm_snapshot {action: "create"} answers QUOTA_EXCEEDED naming the limit.
   */
  snapshots: Type.Object({
    /** Hours a snapshot is kept after it is made. */
    keep_hours: Type.Number({ exclusiveMinimum: 0, maximum: 8760, default: 24 }),
    /** Live snapshots one principal may hold. */
    max_per_principal: Type.Integer({ minimum: 0, default: 10 }),
    /** Disk the live snapshots of this instance may use together (sum of their size_bytes). Default 20 GiB. */
    max_bytes: Type.Integer({ minimum: 0, default: 20 * 1024 ** 3 }),
  }, { default: {} }),
  /**
   * Workspaces (vm_lease_create {workspace}): named volumes at the guest home that outlive leases,
   * deleted only by a person (`vmhub-server workspaces rm`, the dashboard). A new one past a limit
   * answers QUOTA_EXCEEDED naming it; an existing one can always be attached.
   */
  workspaces: Type.Object({
    /** Workspaces one principal may hold. */
    max_per_principal: Type.Integer({ minimum: 0, default: 10 }),
    /** Bytes one principal's workspaces may hold together (as last measured). Default 50 GiB. */
    max_bytes_per_principal: Type.Integer({ minimum: 0, default: 50 * 1024 ** 3 }),
  }, { default: {} }),
  /**
   * The tool groups tools/list offers (toolsets.ts): lease (always), screen, input, batch, files,
   * exec, apps, admin; "default" = lease, screen, input, files, exec; "all" = every set. A tool outside
   * them is not listed and answers POLICY_DENIED naming its set. Env VMHUB_TOOLSETS (comma-separated).
   */
  toolsets: Type.Array(Type.String(), { default: ['default'] }),
  policy: Type.Object({
    /** Tools refused with POLICY_DENIED, e.g. ["vm_exec", "vm_dispatch"]. Env VMHUB_DENY_TOOLS. */
    deny_tools: Type.Array(Type.String(), { default: [] }),
  }, { default: {} }),
  screenshots: Type.Object({
    /** Also save each screenshot here (PNG/JPEG/WebP files). Env VMHUB_SCREENSHOT_DIR. Unset: not saved. */
    dir: Type.Optional(Type.String()),
    format: Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('webp')], { default: 'png' }),
    max_width: Type.Integer({ minimum: 64, default: 1280 }),
    max_height: Type.Integer({ minimum: 64, default: 800 }),
    /** Byte budget of one image (clients reject results near 1 MB). */
    max_bytes: Type.Integer({ minimum: 10000, default: 800000 }),
  }, { default: {} }),
  files: Type.Object({
    /** Largest file vm_put_file / vm_get_file moves (its base64 must fit one MCP message: at most 64 MiB). */
    max_bytes: Type.Integer({ minimum: 1, maximum: 64 * 1024 * 1024, default: 32 * 1024 * 1024 }),
  }, { default: {} }),
  clone: Type.Object({
    /** URL schemes vm_clone_repo accepts. */
    allowed_schemes: Type.Array(Type.String(), { default: ['https', 'ssh', 'git'] }),
    /** Hosts accepted; empty = any host. */
    allowed_hosts: Type.Array(Type.String(), { default: [] }),
    /** Allow file:// and local paths (refused by default: they would read the server's own disk). */
    allow_file: Type.Boolean({ default: false }),
    /** Allow loopback / private hosts (refused by default). */
    allow_private_hosts: Type.Boolean({ default: false }),
    /** Host-held credentials per URL host: the token is read from the named env var, never from tool arguments. */
    credentials: Type.Record(Type.String(), Type.Object({ username: Type.Optional(Type.String()), token_env: Type.String() }), { default: {} }),
    /** Seconds a host-side clone may take. */
    timeout_seconds: Seconds(300),
    /** Largest working tree (bytes) streamed into a VM. */
    max_bytes: Type.Integer({ minimum: 1, default: 512 * 1024 * 1024 }),
  }, { default: {} }),
  /**
   * A GitHub App that mints per-lease tokens for vm_clone_repo {push: true}: an installation token
   * down-scoped to the one repository, installed in the guest for that repository only and revoked
   * when the lease ends (docs/github-app.md). The private key is read from a file or an env var on
   * the vmhub host; it never leaves the host and is never logged.
   */
  github_app: Type.Optional(Type.Object({
    /** The App's numeric id (GitHub shows it on the App's settings page). */
    app_id: Type.Union([Type.Integer({ minimum: 1 }), Type.String({ minLength: 1 })]),
    /** A file holding the App's private key (PEM, as GitHub hands it out). */
    private_key_file: Type.Optional(Type.String({ minLength: 1 })),
    /** Or: the env var holding the PEM. */
    private_key_env: Type.Optional(Type.String({ minLength: 1 })),
    /** The installation to mint from; default: looked up per repository (GET /repos/{owner}/{repo}/installation). */
    installation_id: Type.Optional(Type.Integer({ minimum: 1 })),
    /** REST API root; default https://api.github.com (GitHub Enterprise Server: https://HOST/api/v3). */
    api_url: Type.Optional(Type.String({ minLength: 1 })),
    /** The host whose clone URLs the App serves; default github.com for the public API, else api_url's host. */
    web_host: Type.Optional(Type.String({ minLength: 1 })),
    /** A lease that outlives its token (one hour) gets a fresh one this long before it lapses. Default 600. */
    refresh_before_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3000 })),
  })),
  reaper: Type.Object({
    interval_seconds: Seconds(30),
    /**
     * The server starts a reaper (detached, `vmhub-reaper --while-needed`) for its store when a
     * lease exists and none holds the store's reaper lock; it exits once no lease or machine is
     * left. Turn off when the reaper runs as a service. Env VMHUB_REAPER_AUTOSTART (0/1).
     */
    autostart: Type.Boolean({ default: true }),
    /** Machines with this instance's identity but no live lease are destroyed only when older than this. */
    orphan_grace_seconds: Seconds(300, 0),
    /** A releasing lease whose claim lapsed this long ago is taken over. */
    stuck_grace_seconds: Seconds(120, 0),
  }, { default: {} }),
  http: Type.Object({
    /** Address `vmhub-server --http` binds. Env VMHUB_HTTP_HOST. */
    host: Type.String({ default: '127.0.0.1' }),
    /** Port; 0 picks a free one (printed on stderr). Env VMHUB_HTTP_PORT. */
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8787 }),
    /** Env var holding the bearer token clients must send. Without a token the server refuses to start, unless it binds loopback and allow_no_auth is set. */
    token_env: Type.String({ default: 'VMHUB_HTTP_TOKEN' }),
    /** Browser origins allowed to call (requests with any other Origin header get 403). */
    allowed_origins: Type.Array(Type.String(), { default: [] }),
    /** Explicit opt-out of the token, honoured only on a loopback address. Env VMHUB_HTTP_ALLOW_NO_AUTH=1. */
    allow_no_auth: Type.Boolean({ default: false }),
    /**
     * Named bearer tokens, one per agent (principal). The token is read from the named env var,
     * never from this file. The token of `token_env` (when set) is the principal "default".
     * SIGHUP re-reads this list: a principal removed from it is revoked and its sessions closed.
     */
    tokens: Type.Array(Type.Object({
      principal: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$' }),
      token_env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    }), { default: [] }),
    /** An MCP session with no request for this long is closed (its client must initialize again). Env VMHUB_HTTP_SESSION_IDLE_SECONDS. */
    session_idle_seconds: Seconds(1800),
    /** Open MCP sessions at most; past it a new initialize gets 503 (nothing is evicted). Env VMHUB_HTTP_MAX_SESSIONS. */
    max_sessions: Type.Integer({ minimum: 1, default: 100 }),
    /**
     * Open MCP sessions one principal may hold at most, so one agent cannot take every slot of
     * max_sessions; past it its next initialize gets 429 while other principals still open theirs.
     * Unset: a quarter of max_sessions, at least 1. Env VMHUB_HTTP_MAX_SESSIONS_PER_PRINCIPAL.
     */
    max_sessions_per_principal: Type.Optional(Type.Integer({ minimum: 1 })),
    /** A live-view browser sign-in (the vmhub_session cookie) ends after this long without a request. */
    ui_session_idle_seconds: Seconds(7200),
    /** A live-view browser sign-in ends this long after it was made, however busy (the cookie's Max-Age). */
    ui_session_max_seconds: Seconds(43200),
    /**
     * The principal whose live view (dashboard and /api/) also shows the leases of the local OS
     * user running this server — the principal of the leases stdio clients (Claude Desktop/Code,
     * Cursor) make on this store — and may take them over. Default "default" (the token of
     * `token_env`); false: nobody's. MCP tools are not widened: each principal still reaches
     * only its own leases through them.
     */
    local_leases_dashboard: Type.Union([Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$' }), Type.Literal(false)], { default: 'default' }),
  }, { default: {} }),
  ocr: Type.Object({
    /**
     * The OCR engine of vm_find_text, vm_wait {for: "text"}, vm_click {text} and
     * vm_screenshot {marks}: "tesseract" (its Debian binary, found on PATH) or "none" (those
     * tools answer CAPABILITY_UNAVAILABLE). Env VMHUB_OCR.
     */
    engine: Type.Union([Type.Literal('tesseract'), Type.Literal('none')], { default: 'tesseract' }),
    /** The tesseract binary. Env VMHUB_TESSERACT. Default: `tesseract` on PATH. */
    tesseract_path: Type.Optional(Type.String()),
    /** tesseract's -l: language packs joined with "+", e.g. "eng+deu". */
    languages: Type.String({ default: 'eng', pattern: '^[A-Za-z_]+(\\+[A-Za-z_]+)*$' }),
  }, { default: {} }),
  recordings: Type.Object({
    /** Keep each lease's trajectory (tool calls, screenshots, the person's turns of the live view). */
    enabled: Type.Boolean({ default: true }),
    /** Where: one folder per lease. Default: `recordings/` beside the store's SQLite file. */
    dir: Type.Optional(Type.String()),
    /** A lease's folder untouched this long is deleted (checked at start and hourly). */
    keep_hours: Type.Integer({ minimum: 1, default: 72 }),
  }, { default: {} }),
  audit: Type.Object({
    /** One JSON line per tool call is appended here (secrets redacted). Env VMHUB_AUDIT_FILE. Unset: store events only. */
    file: Type.Optional(Type.String()),
  }, { default: {} }),
});
export type VmhubConfig = Static<typeof VmhubConfigSchema>;

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Config file path; default env VMHUB_CONFIG, else ~/.config/vmhub/config.json if it exists. */
  file?: string;
}

/** Read env + file, validate, fill defaults. Throws INVALID_REQUEST naming the bad key. */
export function loadConfig(options: LoadConfigOptions = {}): VmhubConfig & { source: string | null } {
  const env = options.env ?? process.env;
  const explicit = options.file ?? env.VMHUB_CONFIG;
  const candidate = explicit ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'vmhub', 'config.json');
  // Refused unless trusted (owner, write bits); a parse error names the line and column, never content.
  const parsed = readConfigFile(candidate, Boolean(explicit));
  const source: string | null = parsed === undefined ? null : candidate;
  const raw = (parsed === undefined ? {} : parsed) as Record<string, any>;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new VmhubError('INVALID_REQUEST', `[vmhub] config file ${candidate} must hold a JSON object`, { source: 'config' });

  // A relative plugin path in the file means the file's folder, whatever directory the server
  // (or the reaper it starts) runs in; VMHUB_PLUGINS paths stay relative to the working directory.
  if (source && Array.isArray(raw.plugins)) raw.plugins = raw.plugins.map((p: unknown) => (typeof p === 'string' && isPluginPath(p) ? resolvePluginPath(p, dirname(source!)) : p));
  const section = (k: string) => (raw[k] ??= {});
  if (env.VMHUB_INSTANCE) raw.instance = env.VMHUB_INSTANCE;
  if (env.VMHUB_DB) raw.db = env.VMHUB_DB;
  if (env.VMHUB_PLUGINS) raw.plugins = [...(raw.plugins ?? []), ...env.VMHUB_PLUGINS.split(',').map((s) => s.trim()).filter(Boolean)];
  if (env.VMHUB_STANDIN_TEMPLATES) raw.standin_templates = !['0', 'false', 'no', 'off', ''].includes(env.VMHUB_STANDIN_TEMPLATES.toLowerCase());
  if (env.VMHUB_DEFAULT_TTL_SECONDS) section('leases').default_ttl_seconds = intEnv(env, 'VMHUB_DEFAULT_TTL_SECONDS');
  if (env.VMHUB_MAX_LIFETIME_SECONDS) section('leases').max_lifetime_seconds = intEnv(env, 'VMHUB_MAX_LIFETIME_SECONDS');
  if (env.VMHUB_PROVISION_TIMEOUT_SECONDS) section('leases').provision_timeout_seconds = intEnv(env, 'VMHUB_PROVISION_TIMEOUT_SECONDS');
  if (env.VMHUB_TOOLSETS) raw.toolsets = env.VMHUB_TOOLSETS.split(',').map((s) => s.trim()).filter(Boolean);
  if (env.VMHUB_DENY_TOOLS) section('policy').deny_tools = env.VMHUB_DENY_TOOLS.split(',').map((s) => s.trim()).filter(Boolean);
  if (env.VMHUB_SCREENSHOT_DIR) section('screenshots').dir = env.VMHUB_SCREENSHOT_DIR;
  if (env.VMHUB_AUDIT_FILE) section('audit').file = env.VMHUB_AUDIT_FILE;
  if (env.VMHUB_OCR) section('ocr').engine = env.VMHUB_OCR;
  if (env.VMHUB_TESSERACT) section('ocr').tesseract_path = env.VMHUB_TESSERACT;
  if (env.VMHUB_REAPER_INTERVAL_SECONDS) section('reaper').interval_seconds = intEnv(env, 'VMHUB_REAPER_INTERVAL_SECONDS');
  if (env.VMHUB_REAPER_AUTOSTART) section('reaper').autostart = !['0', 'false', 'no', 'off'].includes(env.VMHUB_REAPER_AUTOSTART.toLowerCase());
  if (env.VMHUB_HTTP_HOST) section('http').host = env.VMHUB_HTTP_HOST;
  if (env.VMHUB_HTTP_PORT) section('http').port = intEnv(env, 'VMHUB_HTTP_PORT');
  if (env.VMHUB_HTTP_ALLOW_NO_AUTH === '1') section('http').allow_no_auth = true;
  if (env.VMHUB_HTTP_SESSION_IDLE_SECONDS) section('http').session_idle_seconds = intEnv(env, 'VMHUB_HTTP_SESSION_IDLE_SECONDS');
  if (env.VMHUB_HTTP_MAX_SESSIONS) section('http').max_sessions = intEnv(env, 'VMHUB_HTTP_MAX_SESSIONS');
  if (env.VMHUB_HTTP_MAX_SESSIONS_PER_PRINCIPAL) section('http').max_sessions_per_principal = intEnv(env, 'VMHUB_HTTP_MAX_SESSIONS_PER_PRINCIPAL');
  if (env.VMHUB_LEASE_SESSION_IDLE_SECONDS) section('leases').session_idle_seconds = intEnv(env, 'VMHUB_LEASE_SESSION_IDLE_SECONDS');
  if (env.VMHUB_ORPHAN_GRACE_SECONDS) section('reaper').orphan_grace_seconds = intEnv(env, 'VMHUB_ORPHAN_GRACE_SECONDS');

  const what = `[vmhub] configuration${source ? ` (${source})` : ''}`;
  const unknown = unknownKeys(VmhubConfigSchema, raw, '');
  if (unknown.length > 0) {
    throw new VmhubError('INVALID_REQUEST', `${what}: ${unknown.slice(0, 5).map(describeUnknown).join('; ')}`, { source: 'config', hint: 'Fix or remove the key, then start again. Every key is in node_modules/@vmhub/server/docs/configuration.md (`vmhub-server --help` prints its full path).' });
  }
  const config = assertValid<VmhubConfig>(VmhubConfigSchema, raw, what, 'config');
  resolveToolsets(config.toolsets, `${what}: toolsets${env.VMHUB_TOOLSETS ? ' (VMHUB_TOOLSETS)' : ''}`);
  for (const [id, pool] of Object.entries(config.pools)) {
    if (pool.min_ready > pool.max) throw new VmhubError('INVALID_REQUEST', `${what}: pools.${id}.min_ready (${pool.min_ready}) is more than pools.${id}.max (${pool.max})`, { source: 'config', hint: 'A pool keeps min_ready machines waiting and never holds more than max: lower min_ready or raise max.' });
  }
  return { ...config, source };
}

function intEnv(env: NodeJS.ProcessEnv, name: string): number {
  const value = Number(env[name]);
  if (!Number.isInteger(value)) throw new VmhubError('INVALID_REQUEST', `[vmhub] ${name}="${env[name]}" must be an integer`, { source: 'config' });
  return value;
}

/** A key the schema does not know, with the nearest valid sibling when one is close. */
export interface UnknownKey {
  path: string;
  key: string;
  suggestion?: string;
  valid: string[];
}

/**
 * Every key of `value` that `schema` does not declare, at every nesting level (objects, arrays,
 * records). Ajv would let them through (only some objects say additionalProperties: false), and a
 * misspelt key silently leaves its default in force. Open maps (providers.<id>, provider_options,
 * adapter_options: validated by their plugin) are not looked into.
 */
export function unknownKeys(schema: unknown, value: unknown, path: string): UnknownKey[] {
  const s = schema as { type?: string; properties?: Record<string, unknown>; patternProperties?: Record<string, unknown>; additionalProperties?: unknown; items?: unknown };
  if (s.type === 'array' && Array.isArray(value) && s.items) return value.flatMap((item, i) => unknownKeys(s.items, item, `${path}[${i}]`));
  if (s.type !== 'object' || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const open = s.patternProperties ? Object.values(s.patternProperties)[0] : typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  const out: UnknownKey[] = [];
  for (const [key, child] of Object.entries(value)) {
    const where = path ? `${path}.${key}` : key;
    const declared = s.properties && Object.hasOwn(s.properties, key) ? s.properties[key] : open;
    if (declared !== undefined) out.push(...unknownKeys(declared, child, where));
    else if (!s.properties) continue;
    // A JSON-schema reference for editors is not configuration.
    else if (!(path === '' && key === '$schema')) {
      const valid = Object.keys(s.properties);
      out.push({ path: where, key, suggestion: nearest(key, valid), valid });
    }
  }
  return out;
}

export function describeUnknown(u: UnknownKey): string {
  const parent = u.path.slice(0, u.path.length - u.key.length);
  return u.suggestion !== undefined
    ? `unknown key "${u.path}": did you mean "${parent}${u.suggestion}"?`
    : `unknown key "${u.path}" (valid here: ${u.valid.join(', ')})`;
}

/** The candidate closest to `word` (case-insensitive edit distance, prefixes count), if close enough. */
function nearest(word: string, candidates: string[]): string | undefined {
  const w = word.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const l = c.toLowerCase();
    const d = l.startsWith(w) || w.startsWith(l) ? Math.min(1, editDistance(w, l)) : editDistance(w, l);
    if (!best || d < best.d) best = { c, d };
  }
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.c : undefined;
}
