/**
 * Every device command goes through the kit's guest runner (argv only, bounded, cancelled with the
 * call, typed errors); this file says what is Android about it: commands run from `/`, a failure
 * quotes stderr or else stdout (Android tools print their errors there), and a tool counts as
 * missing when the shell says so or cannot run it at all. A Device is made per call over the
 * lease's shared channel and carries that call's signal.
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { openGuest, type Guest } from '@vmhub/core/adapter-kit';
import { clipMiddle, errors, missingTool } from './errors.ts';
import type { AndroidOptions } from './options.ts';

export type { RunOptions } from '@vmhub/core/adapter-kit';
export type Device = Guest;

export function openDevice(ctx: AdapterContext, options: AndroidOptions): Promise<Device> {
  return openGuest(ctx, {
    errors,
    missingTool,
    scriptName: 'vmhub-android',
    scriptLabel: 'device script',
    where: ' on the device',
    cwd: '/',
    timeoutMs: options.command_timeout_ms,
    maxOutputBytes: 4 * 1024 * 1024,
    failureOutput: (stderr, res) => {
      const out = stderr || res.stdout.toString('utf8').trim();
      return out ? clipMiddle(out) : '';
    },
    toolNotFound,
  });
}

function toolNotFound(argv: string[], res: ExecResult, stderr: string): string | undefined {
  if (res.exit_code !== 127 && res.exit_code !== 126) return undefined;
  const inScript = /([A-Za-z0-9._+-]+): (?:command |inaccessible or )?not found/.exec(stderr);
  if (inScript) return inScript[1];
  if (argv[0] !== 'sh') return argv[0];
  return undefined;
}
