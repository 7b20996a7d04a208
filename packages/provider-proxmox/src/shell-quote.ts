/**
 * SSH runs a command line through the remote user's shell, so this is the one place the provider
 * builds one: from an argv, each element POSIX-quoted by core's quoteArg/quoteArgv. Nothing the
 * agent sent is ever interpreted by the shell.
 */
import { quoteArg, quoteArgv } from '@vmhub/core';

export { quoteArg, quoteArgv };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `cd <dir> && exec [sudo -u u --] [env K=V] [timeout -s KILL n] argv`, every piece quoted. With
 * `killAfterSeconds` the guest's own `timeout` (when installed) kills the process, since closing
 * the SSH channel does not stop a process that neither reads nor writes.
 */
export function buildRemoteCommand(argv: readonly string[], options: { cwd?: string; env?: Record<string, string>; sudoUser?: string; killAfterSeconds?: number } = {}): string {
  if (argv.length === 0) throw new TypeError('argv is empty');
  const prefix: string[] = [];
  if (options.sudoUser) prefix.push('sudo', '-n', '-H', '-u', options.sudoUser, '--');
  const env = Object.entries(options.env ?? {});
  if (env.length > 0) {
    for (const [k] of env) if (!ENV_NAME.test(k)) throw new TypeError(`environment variable name "${k}" is invalid`);
    prefix.push('env', ...env.map(([k, v]) => `${k}=${v}`));
  }
  let command = `exec ${quoteArgv([...prefix, ...argv])}`;
  if (options.killAfterSeconds !== undefined) {
    const n = String(Math.max(1, Math.ceil(options.killAfterSeconds)));
    command = `if command -v timeout >/dev/null 2>&1; then exec ${quoteArgv([...prefix, 'timeout', '-s', 'KILL', n, ...argv])}; else ${command}; fi`;
  }
  return options.cwd ? `cd ${quoteArg(options.cwd)} && ${command}` : command;
}
