/**
 * @vmhub/reaper — the independent reaper. It reads the store the servers write, expires leases,
 * fails stuck ones and destroys their machines (and orphans carrying this instance's identity)
 * through the provider plugins, which verify identity before destroying. It imports only the
 * store, the providers and @vmhub/core, so it keeps working when every server is dead.
 * The CLI is `vmhub-reaper` (src/bin.ts); this module exposes the pass for embedding and tests.
 */
export { runPass } from './pass.ts';
export type { PassContext, PassSettings } from './context.ts';
export { LIVE, FINAL } from './context.ts';
export { formatSummary, summaryJson, type PassSummary, type PassError } from './summary.ts';
export { createLogger, type Logger, type LogLevel } from './log.ts';
export { ORPHAN_REQUEST_PREFIX } from './orphans.ts';
export { revokeLeaseCredentials, revokePending, revokeCredential, revokeToken, type RevokeOptions, type RevokeOutcome, type TokenRevocation } from './credentials.ts';
