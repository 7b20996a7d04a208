/**
 * vm_type: Windows-MCP's Type (early: Type-Tool) always clicks its `loc` before typing, so the
 * text is typed where the pointer is — where the agent last clicked (the field it focused), or
 * the cursor position Windows-MCP reports. One call for the whole text, "\n" included, so the
 * caret is never moved between lines.
 */
import type { AdapterContext } from '@vmhub/core';
import { winError } from './errors.ts';
import { loc, windows, type WinRuntime } from './runtime.ts';

export async function type(rt: WinRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const tool = await rt.mcp.need(ctx, 'type', 'vm_type');
  if (!rt.pointer) await windows(rt, ctx).catch(() => undefined);
  // Guessing a point would click something the agent never chose: refuse instead.
  if (!rt.pointer) throw winError('INVALID_REQUEST', `Windows-MCP's ${tool.name} clicks before it types, and this session does not know where the pointer is (the guest's release does not report it): click the field to type into first (vm_click), then vm_type`);
  await rt.mcp.call(ctx, tool, { text: input.text, loc: loc(rt, rt.pointer), clear: false, caret_position: 'idle', press_enter: false });
}
