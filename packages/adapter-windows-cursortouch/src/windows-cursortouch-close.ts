/**
 * vm_close: Windows-MCP has no close tool, so the window is focused (App switch, confirmed) and
 * sent alt+f4 — the graceful close a user does (an app may ask to save; the window then stays).
 */
import type { AdapterContext } from '@vmhub/core';
import { shortcut } from './windows-cursortouch-key.ts';
import { focus } from './windows-cursortouch-focus.ts';
import { sleep, windows, type WinRuntime } from './runtime.ts';

const GONE_MS = 5000;

export async function close(rt: WinRuntime, ctx: AdapterContext, input: { window: string }): Promise<{ window_id: string }> {
  // alt+f4 closes whatever has the focus: the focus is confirmed first (focus() refuses when
  // another window of the same title took it), so a wrong window is never closed.
  const w = await focus(rt, ctx, input);
  await shortcut(rt, ctx, ['alt', 'f4']);
  for (const deadline = Date.now() + GONE_MS; Date.now() < deadline && !ctx.signal.aborted;) {
    if (!(await windows(rt, ctx)).some((x) => x.id === w.id)) break;
    await sleep(250, ctx.signal);
  }
  return { window_id: w.id };
}
