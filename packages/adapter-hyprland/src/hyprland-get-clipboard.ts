/**
 * vm_get_clipboard (and the get_clipboard verb): the Wayland clipboard as text, `wl-paste -n` in
 * the guest bounded by `timeout 3`. An empty clipboard (wl-paste exits 1) reads as "".
 */
import type { AdapterContext } from '@vmhub/core';
import type { HyprRuntime } from './runtime.ts';

export async function readClipboard(rt: HyprRuntime, ctx: AdapterContext): Promise<{ text: string; empty: boolean }> {
  const guest = await rt.guest(ctx);
  const res = await guest.run(['timeout', '3', 'wl-paste', '-n'], { okCodes: [0, 1] });
  return { text: res.exit_code === 0 ? res.stdout.toString('utf8') : '', empty: res.exit_code !== 0 };
}

export async function getClipboard(rt: HyprRuntime, ctx: AdapterContext): Promise<{ text: string }> {
  return { text: (await readClipboard(rt, ctx)).text };
}
