/**
 * Key chords: one run on the session's kept virtual keyboard (vkeyboard.ts). keys.ts maps and
 * validates the names before anything is sent, so an unknown key types nothing.
 */
import type { AdapterContext } from '@vmhub/core';
import { keyArgs } from './keys.ts';
import type { HyprRuntime } from './runtime.ts';
import { playKeys } from './vkeyboard.ts';

export async function key(rt: HyprRuntime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const args = keyArgs(input.keys);
  await playKeys(rt, ctx, ['-d', '8', ...args], 'vm_key');
}
