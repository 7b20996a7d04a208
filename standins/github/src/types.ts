/**
 * The contract of @vmhub/github-standin: what a test passes to `startGithubStandin` and what it
 * gets back. Field names are camelCase; the wire format (GitHub's snake_case JSON) stays inside.
 *
 * One node:http server answers both halves:
 *   - the REST API under `apiUrl` = `http://<host>:<port>/api/v3` (GitHub Enterprise Server's
 *     layout: a client must join paths onto a base that has a path, `${apiUrl}/repos/…`);
 *   - git smart HTTP at `http://<host>:<port>/<owner>/<repo>.git` (`gitUrl('owner/repo')`).
 */

/** A repository permission level, as GitHub's `app-permissions` schema spells it. */
export type PermissionLevel = 'read' | 'write' | 'admin';

/** Permission name → level, e.g. `{ contents: 'write', metadata: 'read' }`. */
export type Permissions = Record<string, PermissionLevel>;

/** The three REST operations, by GitHub's operationId, and their short names for `failNext`. */
export type OperationId = 'apps/get-repo-installation' | 'apps/create-installation-access-token' | 'apps/revoke-installation-access-token';
export type OperationAlias = 'lookup' | 'mint' | 'revoke';

export interface AppOptions {
  /** The App's numeric id: the JWT's `iss` must be this (a number or its decimal string). */
  id: number;
  /** The App's slug (`app_slug`, and `<slug>[bot]` as the git REMOTE_USER). Default `vmhub-test`. */
  slug?: string;
  /** The App's client ID; when given, a JWT whose `iss` is this string is accepted too (GitHub accepts both). */
  clientId?: string;
  /** PEM of the App's RSA public key (SPKI or PKCS#1). Give this or `privateKeyPem`. */
  publicKeyPem?: string;
  /** PEM of the App's RSA private key; only its public half is used (to verify JWTs). */
  privateKeyPem?: string;
  /** What the App was granted. Default `{ contents: 'write', pull_requests: 'write', metadata: 'read' }`. */
  permissions?: Permissions;
}

export interface InstallationOptions {
  /** The installation id (`installation_id` in `/app/installations/{installation_id}/…`). */
  id: number;
  /** The account the App is installed on (a user or organization login). */
  account: string;
  /** `'Organization'` (default) or `'User'`: the account's `type` and the installation's `target_type`. */
  accountType?: 'Organization' | 'User';
  /** Full names `owner/repo` the installation was granted (repository_selection "selected"). */
  repositories: string[];
  /** This installation's permissions; default: the App's. */
  permissions?: Permissions;
}

export interface GithubStandinOptions {
  app: AppOptions;
  installations?: InstallationOptions[];
  /** Address to bind. Default `127.0.0.1`; an end-to-end test binds the Docker bridge gateway. */
  host?: string;
  /** Port to bind; `0` (default) lets the kernel pick a free one. */
  port?: number;
  /** Host written into `apiUrl`/`gitUrl` (default: `host`, or `127.0.0.1` when `host` is a wildcard). */
  urlHost?: string;
  /**
   * `false` (default): tokens are `ghs_` + 36 alphanumerics (40 characters), the classic format.
   * `true`: GitHub's stateless format `ghs_<APPID>_<JWT>` (announced in the description of
   * apps/create-installation-access-token): here the JWT is RS256-signed by a key of the stand-in's
   * own, carrying iss/sub(installation)/iat/exp/jti — about 520 characters with `.`, `-`, `_`.
   */
  longTokens?: boolean;
  /** Lifetime of an installation token in ms. Default 3 600 000 (GitHub: one hour). */
  tokenTtlMs?: number;
  /** Where the bare repositories live (`<gitRoot>/<owner>/<repo>.git`). Default: a temp dir removed by `close()`. */
  gitRoot?: string;
  /** The CGI program. Default `/usr/lib/git-core/git-http-backend` (Debian's git package). */
  gitHttpBackend?: string;
  /** Clock in ms since the epoch (JWT checks, expiry). Default `Date.now`. */
  now?: () => number;
  /** Where the stand-in says loud things (a response that failed its schema). Default: stderr. */
  log?: (line: string) => void;
}

/** One HTTP request the stand-in answered. Never holds an Authorization header or a token. */
export interface RequestRecord {
  method: string;
  /** The URL path without the query string. */
  path: string;
  /** The REST operation, `git-upload-pack`/`git-receive-pack`, or undefined (no route). */
  operation?: OperationId | 'git-upload-pack' | 'git-receive-pack';
  /** `owner/repo` for git requests. */
  repo?: string;
  status: number;
  /** When the request arrived (ISO 8601). */
  at: string;
}

/** One minted installation token. `token` is non-enumerable so logging a record does not print it. */
export interface TokenRecord {
  readonly token: string;
  /** `ghs_…` + the last four characters: safe to print. */
  redacted: string;
  installationId: number;
  /** Full names `owner/repo` the token reaches. */
  repositories: string[];
  permissions: Permissions;
  createdAt: string;
  expiresAt: string;
  revokedAt?: string;
}

export interface RevocationRecord {
  /** Index of the token in `standin.tokens`. */
  index: number;
  installationId: number;
  redacted: string;
  at: string;
}

/** One ref update accepted by a push (from a post-receive hook in the bare repository). */
export interface PushRecord {
  repo: string;
  ref: string;
  oldSha: string;
  newSha: string;
  at: string;
}

/** A response the stand-in produced that does not match GitHub's schema: a bug in the stand-in. */
export interface SchemaViolation {
  operation: OperationId | 'unrouted';
  status: number;
  errors: string;
}

/** A request whose path parameters or body did not match the description (answered 404/422 as GitHub does). */
export interface RequestViolation {
  operation: OperationId;
  where: 'path' | 'body';
  errors: string;
}

export interface CreateRepoOptions {
  /** Files of the initial commit, path → content. Default `{ 'README.md': '# <repo>\n' }`. */
  files?: Record<string, string>;
}

export interface CreatedRepo {
  /** The bare repository's directory. */
  path: string;
  /** Its clone URL (no credentials in it). */
  url: string;
  /** The initial commit on `main`. */
  headSha: string;
}

export interface GithubStandin {
  /** `http://<urlHost>:<port>/api/v3` — give exactly this to vmhub as `api_url`. */
  readonly apiUrl: string;
  /** `http://<urlHost>:<port>`: the web/git root. */
  readonly baseUrl: string;
  readonly host: string;
  readonly port: number;
  /** The directory holding `<owner>/<repo>.git`. */
  readonly gitRoot: string;
  /** `${baseUrl}/<owner>/<repo>.git`. */
  gitUrl(fullName: string): string;
  /** A bare repository with one commit on `main`; also gives it a repository id for the API. */
  createRepo(fullName: string, options?: CreateRepoOptions): Promise<CreatedRepo>;
  /** Live arrays, appended to as things happen. */
  readonly requests: RequestRecord[];
  readonly tokens: TokenRecord[];
  readonly revocations: RevocationRecord[];
  readonly pushes: PushRecord[];
  readonly schemaViolations: SchemaViolation[];
  readonly requestViolations: RequestViolation[];
  /**
   * The next request to `operation` answers `status` (401/403/404/422/500, or any 4xx/5xx) with a
   * GitHub-shaped body `{ message, documentation_url, status }` instead of doing its work.
   * Several calls queue up in order.
   */
  failNext(operation: OperationId | OperationAlias, status: number, message?: string): void;
  /** Make a token expired now (its `expiresAt` moves to one second ago). */
  expire(token: string): void;
  /** Stop listening, end open connections, remove the temp git root. */
  close(): Promise<void>;
}
