/**
 * vm_click: Click (early: Click-Tool) at the point, in Windows-MCP's coordinates. Its Click has
 * no modifier keys and, since v0.6, no triple click (clicks 0–2): a triple is a double then a
 * single at the same point.
 */
import type { AdapterContext, Modifier, MouseButton } from '@vmhub/core';
import { winError } from './errors.ts';
import { loc, type WinRuntime } from './runtime.ts';

export async function click(rt: WinRuntime, ctx: AdapterContext, input: { x: number; y: number; button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void> {
  if (input.modifiers.length > 0) throw winError('INVALID_REQUEST', `Windows-MCP's Click holds no modifier keys (asked for ${input.modifiers.join('+')}): click without modifiers, or use vm_key for the chord`);
  const tool = await rt.mcp.need(ctx, 'click', 'vm_click');
  const at = loc(rt, input);
  const counts = tool.name === 'Click' && input.count > 2 ? [2, input.count - 2] : [input.count];
  for (const clicks of counts) await rt.mcp.call(ctx, tool, { loc: at, button: input.button, clicks });
  rt.pointer = { x: input.x, y: input.y };
}
