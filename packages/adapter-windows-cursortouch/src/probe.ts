/**
 * probe(): which declared capabilities this guest cannot serve now, and why — no key on the
 * vmhub host, Windows-MCP not answering (or refusing the key / the Host header), or the guest's
 * release lacking the tool a capability needs.
 */
import type { AdapterContext, Capability } from '@vmhub/core';
import { noKey } from './errors.ts';
import type { WinRuntime } from './runtime.ts';
import type { Role } from './tool-map.ts';

/** The roles each capability needs (all of them; `files` needs one of PowerShell or FileSystem). */
const NEEDS: Partial<Record<Capability, Role[]>> = {
  screenshot: ['screenshot'], inspect: ['snapshot'], list_windows: ['snapshot'],
  focus: ['snapshot', 'switch'], close: ['snapshot', 'switch', 'shortcut'], launch: ['launch'],
  click: ['click'], type: ['type'], key: ['shortcut'], paste: ['shortcut'],
  drag: ['drag'], scroll: ['scroll'], exec: ['powershell'], clone_repo: ['powershell'],
};

export async function probe(rt: WinRuntime, ctx: AdapterContext, declared: readonly Capability[]): Promise<Partial<Record<Capability, string>>> {
  const out: Partial<Record<Capability, string>> = {};
  const all = declared.filter((c) => c !== 'dispatch');
  if (!(await rt.mcp.hasKey())) {
    const reason = noKey(rt.mcp.keyEnv).message;
    for (const c of [...all, ...(declared.includes('dispatch') ? ['dispatch' as const] : [])]) out[c] = reason;
    return out;
  }
  let tools;
  try {
    tools = await rt.mcp.tools(ctx);
  } catch (err) {
    const reason = (err as Error).message;
    for (const c of declared) out[c] = reason;
    return out;
  }
  for (const cap of all) {
    const roles = NEEDS[cap];
    const lacking = roles?.find((r) => !tools.tool(r));
    if (lacking) out[cap] = tools.missing(lacking);
  }
  if (declared.includes('paste') && !out.paste && !tools.tool('clipboard') && !tools.tool('powershell')) out.paste = `${tools.missing('clipboard')}, nor PowerShell`;
  if (!tools.tool('powershell') && !tools.tool('filesystem')) {
    for (const c of ['put_file', 'get_file'] as const) if (declared.includes(c)) out[c] = `${tools.missing('powershell')}, nor FileSystem`;
  } else if (!tools.tool('powershell')) {
    for (const c of ['put_file', 'get_file'] as const) if (declared.includes(c)) out[c] = 'no PowerShell tool: only UTF-8 text files, through FileSystem (needs adapter_options.home)';
  }
  return out;
}
