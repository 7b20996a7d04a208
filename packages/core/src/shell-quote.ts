/**
 * POSIX shell quoting, for the places a command line must be built from an argv (SSH runs a
 * command line through the remote user's shell; a command shown to a person must paste back as
 * the same words): each element single-quoted (a `'` becomes `'\''`) unless it is made only of
 * characters no shell treats specially. Nothing quoted here is ever interpreted by the shell.
 */
export function quoteArg(arg: string): string {
  if (arg.includes('\0')) throw new TypeError('argument contains a NUL byte');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function quoteArgv(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}
