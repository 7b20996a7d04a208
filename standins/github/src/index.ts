/**
 * @vmhub/github-standin — a private test peer standing in for GitHub as a GitHub App sees it:
 * the REST operations that find an App's installation on a repository and mint/revoke
 * per-repository installation tokens (checked against GitHub's own OpenAPI description), and a
 * real git smart-HTTP server (git http-backend) that takes those tokens for clone and push.
 * See README.md; the contract is in types.ts.
 */
export { startGithubStandin, DEFAULT_APP_PERMISSIONS } from './standin.ts';
export { makeAppKeyPair, type AppKeyPair } from './keys.ts';
export { signAppJwt, type SignAppJwtOptions } from './jwt.ts';
export { MESSAGES as GITHUB_MESSAGES, type GithubErrorBody } from './errors.ts';
export type {
  AppOptions, CreatedRepo, CreateRepoOptions, GithubStandin, GithubStandinOptions, InstallationOptions, OperationAlias,
  OperationId, PermissionLevel, Permissions, PushRecord, RequestRecord, RequestViolation, RevocationRecord, SchemaViolation,
  TokenRecord,
} from './types.ts';
