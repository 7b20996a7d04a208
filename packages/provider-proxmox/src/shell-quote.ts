/**
 * SSH runs a command line through the remote user's shell, so this is the one place a command line
 * is built: from an argv, each element POSIX single-quoted (a `'` becomes `'\''`). Nothing the
 * agent sent is ever interpreted by the shell.
 */
export function quoteArg(arg: string): string {
  if (arg.includes('\0')) throw new TypeError('argument contains a NUL byte');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function quoteArgv(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `cd <dir> && exec env K=V -- argv` (or `sudo -u`), every piece quoted. */
export function buildRemoteCommand(argv: readonly string[], options: { cwd?: string; env?: Record<string, string>; sudoUser?: string } = {}): string {
  if (argv.length === 0) throw new TypeError('argv is empty');
  const prefix: string[] = [];
  if (options.sudoUser) prefix.push('sudo', '-n', '-H', '-u', options.sudoUser, '--');
  const env = Object.entries(options.env ?? {});
  if (env.length > 0) {
    for (const [k] of env) if (!ENV_NAME.test(k)) throw new TypeError(`environment variable name "${k}" is invalid`);
    prefix.push('env', ...env.map(([k, v]) => `${k}=${v}`));
  }
  const command = `exec ${quoteArgv([...prefix, ...argv])}`;
  return options.cwd ? `cd ${quoteArg(options.cwd)} && ${command}` : command;
}
