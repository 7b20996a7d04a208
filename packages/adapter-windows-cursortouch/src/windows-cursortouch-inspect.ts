/** vm_inspect: the UI Automation tree Windows-MCP's Snapshot (State-Tool) prints, as ElementNodes. */
import type { AdapterContext, ElementNode } from '@vmhub/core';
import type { WinRuntime } from './runtime.ts';
import { parseTree } from './tree-text.ts';

export async function inspect(rt: WinRuntime, ctx: AdapterContext, input: { max_depth: number }): Promise<{ source: string; tree: ElementNode }> {
  const tool = await rt.mcp.need(ctx, 'snapshot', 'vm_inspect');
  const reply = await rt.mcp.call(ctx, tool, { use_vision: false, use_ui_tree: true, use_annotation: false, use_dom: false });
  return { source: `windows-mcp ${tool.name} (UI Automation)`, tree: parseTree(reply.text, input.max_depth) };
}
