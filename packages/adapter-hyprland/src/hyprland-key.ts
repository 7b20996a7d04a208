/** Key chords: one wtype run (keys.ts maps the names; wtype rejects unknown ones before typing). */
import type { AdapterContext } from '@vmhub/core';
import { hyprError } from './errors.ts';
import { keyArgs, wtypeRefusal } from './keys.ts';
import type { HyprRuntime } from './runtime.ts';

export async function key(rt: HyprRuntime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const args = keyArgs(input.keys);
  const guest = await rt.guest(ctx);
  // -s first: a new virtual keyboard's first event is lost before clients have bound it.
  const res = await guest.run(['wtype', '-s', String(rt.options.input_settle_ms), '-d', '8', ...args], { okCodes: [0, 1], label: 'wtype' });
  if (res.exit_code === 1) {
    const stderr = res.stderr.toString('utf8');
    throw wtypeRefusal(stderr, input.keys) ?? hyprError('INTERNAL', `wtype failed: ${stderr.trim().slice(0, 300)}`);
  }
}
