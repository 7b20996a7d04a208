/**
 * vm_focus: App mode "switch" (early releases: Switch-Tool) with the window's exact title —
 * Windows-MCP matches names fuzzily, so the window is looked up first (id or exact title) and
 * its focus is confirmed in a fresh listing; when several windows share the title and the wrong
 * one took the focus, that is said (INVALID_REQUEST), never papered over.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { winError } from './errors.ts';
import { findWindow, sleep, windows, type WinRuntime } from './runtime.ts';


const CONFIRM_MS = 3000;

export async function switchTo(rt: WinRuntime, ctx: AdapterContext, w: WindowInfo): Promise<void> {
  const tool = await rt.mcp.need(ctx, 'switch', 'vm_focus');
  const reply = await rt.mcp.call(ctx, tool, tool.name === 'Switch-Tool' ? { name: w.title } : { mode: 'switch', name: w.title });
  if (/^\s*(failed|error)|not found/i.test(reply.text)) throw winError('NOT_FOUND', `Windows-MCP ${tool.name} could not switch to "${w.title}": ${reply.text.trim().slice(0, 300)}`);
}

export async function focus(rt: WinRuntime, ctx: AdapterContext, input: { window: string }): Promise<WindowInfo> {
  const all = await windows(rt, ctx);
  const w = await findWindow(rt, ctx, input.window);
  if (w.focused) return w;
  await switchTo(rt, ctx, w);
  for (const deadline = Date.now() + CONFIRM_MS; ;) {
    const now = await windows(rt, ctx);
    const mine = now.find((x) => x.id === w.id);
    if (mine?.focused) return mine;
    if (Date.now() > deadline || ctx.signal.aborted) {
      const twins = all.filter((x) => x.title === w.title).length;
      if (twins > 1) {
        throw winError('INVALID_REQUEST', `${twins} windows are titled "${w.title}" and Windows-MCP's App switch finds windows by name only: window ${w.id} could not be told apart (${now.find((x) => x.focused)?.id ?? 'none'} has the focus)`, { hint: 'Close the other windows of that title, or click inside the one you want.' });
      }
      throw winError('INTERNAL', `window ${w.id} "${w.title}" did not take the focus within ${CONFIRM_MS} ms of App switch`, { retryable: true });
    }
    await sleep(200, ctx.signal);
  }
}
