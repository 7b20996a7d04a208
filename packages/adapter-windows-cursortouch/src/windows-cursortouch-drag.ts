/**
 * vm_drag: Move with drag=true — atomic from_loc → loc where the release has from_loc, else a
 * hover to `from` then a drag from the pointer; the early Drag-Tool likewise (from_loc/to_loc,
 * or Move-Tool then Drag-Tool to_loc). Windows-MCP drags with the left button only.
 */
import type { AdapterContext, MouseButton, Point } from '@vmhub/core';
import { winError } from './errors.ts';
import { loc, type WinRuntime } from './runtime.ts';
import { hasParam } from './tool-map.ts';

export async function drag(rt: WinRuntime, ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void> {
  if (input.button !== 'left') throw winError('INVALID_REQUEST', `Windows-MCP drags with the left button only (asked for ${input.button})`);
  const tool = await rt.mcp.need(ctx, 'drag', 'vm_drag');
  const from = loc(rt, input.from), to = loc(rt, input.to);
  if (tool.name === 'Move') {
    if (hasParam(tool, 'from_loc')) await rt.mcp.call(ctx, tool, { loc: to, drag: true, from_loc: from });
    else {
      await rt.mcp.call(ctx, tool, { loc: from });
      await rt.mcp.call(ctx, tool, { loc: to, drag: true });
    }
  } else if (hasParam(tool, 'from_loc')) {
    await rt.mcp.call(ctx, tool, { from_loc: from, to_loc: to });
  } else {
    const move = await rt.mcp.need(ctx, 'move', 'vm_drag');
    await rt.mcp.call(ctx, move, { to_loc: from, loc: from });
    await rt.mcp.call(ctx, tool, { to_loc: to });
  }
  rt.pointer = { ...input.to };
}
