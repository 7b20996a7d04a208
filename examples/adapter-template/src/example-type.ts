/**
 * type: `xdotool type` with the agent's text as ONE argv element after `--` — never a shell
 * string, and text starting with "-" is typed, not read as an option. xdotool maps characters the
 * keyboard lacks (é, ✓) to spare keycodes itself; "\n" presses Return.
 */
import type { AdapterContext } from '@vmhub/core';
import type { ExampleRuntime } from './runtime.ts';

export async function exampleType(rt: ExampleRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const delay = rt.options.type_delay_ms;
  // The call's deadline (ctx.signal) is what really bounds a long text; this only stops a hung xdotool.
  const timeoutMs = 10_000 + [...input.text].length * (delay + 5);
  await (await rt.guest(ctx)).run(['xdotool', 'type', '--delay', String(delay), '--', input.text], { timeoutMs });
}
