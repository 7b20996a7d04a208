/** The adapter's error helpers: every message names the component and says what to do. */
import { VmhubError, type ErrorCode, type VmhubErrorOptions } from '@vmhub/core';

export const SOURCE = 'adapter-windows-cursortouch';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/windows.md';

export function winError(code: ErrorCode, message: string, options: Omit<VmhubErrorOptions, 'source'> = {}): VmhubError {
  return new VmhubError(code, `[vmhub] [${SOURCE}] ${message}`, { ...options, source: SOURCE });
}

/** The lease has no auth key: nothing can be sent to Windows-MCP. */
export function noKey(env: string): VmhubError {
  return winError('CAPABILITY_UNAVAILABLE', `no Windows-MCP auth key: the environment variable ${env} is not set on the vmhub host, so no request can carry "Authorization: Bearer <key>"`, {
    hint: `The operator must set ${env} on the vmhub host to the key the golden's Windows-MCP was started with (or point adapter_options.auth_key_env at another variable); see ${DOCS}.`,
    details: { auth_key_env: env },
  });
}

/** Windows-MCP answered 401: the key we sent is not the one it was started with. */
export function keyRefused(env: string, cause?: unknown): VmhubError {
  return winError('CAPABILITY_UNAVAILABLE', `Windows-MCP refused the auth key (HTTP 401): the key in ${env} on the vmhub host is not the key the guest's Windows-MCP was started with (--auth-key / WINDOWS_MCP_AUTH_KEY)`, {
    hint: `The operator must make ${env} match the key injected into the guest at create; see ${DOCS}.`,
    details: { auth_key_env: env, status: 401 },
    cause,
  });
}

/** Work stopped because the call's signal aborted (cancelled, or its deadline passed). */
export function cancelled(what: string, cause?: unknown): VmhubError {
  return winError('TIMEOUT', `${what} stopped: the call was cancelled or ran out of time`, {
    hint: 'The call was cancelled or its deadline passed: look at the screen (vm_screenshot) before retrying.',
    cause,
  });
}
