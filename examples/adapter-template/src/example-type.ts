/**
 * type: `xdotool type` with the agent's text as ONE argv element after `--` — never a shell
 * string, and text starting with "-" is typed, not read as an option. xdotool maps characters the
 * keyboard lacks (é, ✓) to spare keycodes itself; "\n" presses Return.
 */
import type { AdapterContext } from '@vmhub/core';
import type { Guest } from './example-session.ts';

export async function exampleType(guest: Guest, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const delay = guest.options.type_delay_ms;
  // The call's deadline (ctx.signal) is what really bounds a long text; this only stops a hung xdotool.
  const timeoutMs = 10_000 + [...input.text].length * (delay + 5);
  await guest.x(ctx, ['xdotool', 'type', '--delay', String(delay), '--', input.text], { timeoutMs });
}
