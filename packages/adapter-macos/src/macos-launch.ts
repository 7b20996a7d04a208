/**
 * Launch: `open -a <app> [--args …]` over SSH (LaunchServices; needs no TCC grant). With the
 * in-guest tools on, waits up to wait_seconds for a new window and returns it.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { osaListWindows } from './in-guest.ts';
import type { MacosRuntime } from './runtime.ts';

export async function launch(rt: MacosRuntime, ctx: AdapterContext, input: { app: string; args: string[]; wait_seconds: number }): Promise<{ pid?: number; window?: WindowInfo }> {
  const before = rt.options.in_guest_tools ? new Set((await osaListWindows(rt, ctx)).map((w) => w.id)) : undefined;
  await rt.run(ctx, ['open', '-a', input.app, ...(input.args.length ? ['--args', ...input.args] : [])], { label: 'open -a' });
  if (!before || input.wait_seconds <= 0) return {};
  const until = Date.now() + input.wait_seconds * 1000;
  while (Date.now() < until && !ctx.signal.aborted) {
    const fresh = (await osaListWindows(rt, ctx)).find((w) => !before.has(w.id));
    if (fresh) {
      const { pid, index: _i, ...window } = fresh;
      return { pid, window };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {};
}
