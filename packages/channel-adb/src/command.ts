/**
 * The command line adbd hands to the device's `/system/bin/sh -c`: argv is never spliced raw —
 * each element is single-quoted (a `'` becomes `'\''`), so every byte (UTF-8, newlines, `$`, `;`)
 * reaches the program as one literal argument.
 *
 * The line first prints the shell's pid on stdout (`$$`, which `exec` keeps for the program), so
 * a timeout can kill it on the device: adbd makes each shell a session and process-group leader
 * (setsid), so `kill -9 -<pid>` takes its children too.
 */
import { VmhubError } from '@vmhub/core';

const SOURCE = 'channel-adb';

export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface CommandParts {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
}

export function buildCommand({ argv, cwd, env }: CommandParts): string {
  if (argv.length === 0 || argv[0] === '') throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] exec needs a program: argv is empty`, { source: SOURCE });
  for (const a of argv) {
    if (a.includes('\0')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] an argument contains a NUL byte, which no program can receive`, { source: SOURCE });
  }
  const parts = ['echo $$;'];
  if (cwd !== undefined) parts.push(`cd ${shQuote(cwd)} || exit 127;`);
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!ENV_NAME.test(name)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] environment variable name ${JSON.stringify(name)} is not a shell identifier ([A-Za-z_][A-Za-z0-9_]*)`, { source: SOURCE });
    if (value.includes('\0')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] environment variable ${name} contains a NUL byte`, { source: SOURCE });
    parts.push(`export ${name}=${shQuote(value)};`);
  }
  parts.push(`exec ${argv.map(shQuote).join(' ')}`);
  return parts.join(' ');
}

/** The kill run from a second shell when a command times out or is cancelled. */
export function killCommand(pid: number): string {
  return `kill -9 -${pid} 2>/dev/null || kill -9 ${pid} 2>/dev/null; exit 0`;
}
