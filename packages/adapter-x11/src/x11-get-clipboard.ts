/**
 * vm_get_clipboard (and the get_clipboard verb): the CLIPBOARD (or PRIMARY) selection as text,
 * `xclip -o` in the guest, bounded by `timeout 3` (an owner that never answers). An empty
 * selection, or one with no text target, reads as "".
 */
import type { AdapterContext } from '@vmhub/core';
import type { Guest } from './guest.ts';
import type { X11Runtime } from './runtime.ts';

export async function readSelection(guest: Guest, selection: 'clipboard' | 'primary'): Promise<{ text: string; empty: boolean }> {
  const res = await guest.run(['timeout', '3', 'xclip', '-selection', selection, '-o'], { okCodes: [0, 1] });
  return { text: res.exit_code === 0 ? res.stdout.toString('utf8') : '', empty: res.exit_code !== 0 };
}

export async function getClipboard(rt: X11Runtime, ctx: AdapterContext): Promise<{ text: string }> {
  return { text: (await readSelection(await rt.guest(ctx), 'clipboard')).text };
}
