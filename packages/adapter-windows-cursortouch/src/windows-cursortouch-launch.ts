/**
 * vm_launch: App mode "launch" (a Start-menu name, fuzzy-matched by Windows-MCP) for a bare app
 * name, mode "launch_executable" (exact path + argv, no shell; it answers the pid) for a path or
 * when args are given. The early Launch-Tool takes a name only. The new window is found by
 * listing windows until one appears that was not there before (up to wait_seconds).
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { winError } from './errors.ts';
import { sleep, windows, type WinRuntime } from './runtime.ts';
import { paramEnum } from './tool-map.ts';

export async function launch(rt: WinRuntime, ctx: AdapterContext, input: { app: string; args: string[]; wait_seconds: number }): Promise<{ pid?: number; window?: WindowInfo }> {
  const tool = await rt.mcp.need(ctx, 'launch', 'vm_launch');
  const tools = await rt.mcp.tools(ctx);
  const canList = tools.tool('snapshot') !== undefined;
  const before = canList ? new Set((await windows(rt, ctx)).map((w) => w.id)) : new Set<string>();
  const exact = tool.name !== 'Launch-Tool' && paramEnum(tool, 'mode').includes('launch_executable');
  const isPath = /[\\/]|\.exe$/i.test(input.app);
  let args: Record<string, unknown>;
  if (input.args.length > 0 || (isPath && exact)) {
    if (!exact) throw winError('INVALID_REQUEST', `this guest's Windows-MCP ${tool.name} launches by Start-menu name only: it cannot pass arguments (${JSON.stringify(input.args)}); run the program with vm_exec, or use a Windows-MCP release whose App has mode "launch_executable"`);
    args = { mode: 'launch_executable', executable: input.app, args: input.args };
  } else {
    args = tool.name === 'Launch-Tool' ? { name: input.app } : { mode: 'launch', name: input.app };
  }
  const reply = await rt.mcp.call(ctx, tool, args);
  if (/^\s*failed|not found|does not exist/i.test(reply.text)) throw winError('NOT_FOUND', `Windows-MCP could not launch "${input.app}": ${reply.text.trim().slice(0, 300)}`, { hint: 'Give a Start-menu app name (e.g. "notepad") or the full path of an .exe.' });
  let pid: number | undefined;
  try { const j = JSON.parse(reply.text) as { pid?: unknown }; if (typeof j.pid === 'number') pid = j.pid; } catch { /* launch by name answers prose */ }
  if (!canList) return pid === undefined ? {} : { pid };
  for (const deadline = Date.now() + input.wait_seconds * 1000; ;) {
    const fresh = (await windows(rt, ctx)).find((w) => !before.has(w.id));
    if (fresh || Date.now() >= deadline || ctx.signal.aborted) return { ...(pid === undefined ? {} : { pid }), ...(fresh ? { window: fresh } : {}) };
    await sleep(300, ctx.signal);
  }
}
