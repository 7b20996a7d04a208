/**
 * What every capability function gets: the lease's options, its MCP connection, and what the
 * session has learned about the machine (the latest screenshot's desktop size and origin, where
 * the pointer is, the Windows home). One per lease session (adapter.ts).
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { Facts, type KitSession } from '@vmhub/core/adapter-kit';
import type { WindowsMcp } from './guest.ts';
import { winError } from './errors.ts';
import { windowsPath } from './guest-paths.ts';
import type { WindowsOptions } from './options.ts';
import { homeScript, markerPayload, MAX_SCRIPT, screenScript } from './powershell.ts';
import { parseScreenText } from './screen-text.ts';
import { parseWindows } from './windows-text.ts';

export interface WinRuntime {
  readonly options: WindowsOptions;
  readonly mcp: WindowsMcp;
  /** Desktop size of the latest screenshot (virtual-desktop pixels). */
  screen?: { width: number; height: number };
  /** Windows-MCP coordinates of the screen's top-left (non-zero on some multi-monitor desktops). */
  origin: { x: number; y: number };
  /** Where the pointer is, in screen pixels, when known. */
  pointer?: { x: number; y: number };
  /** Asked once per session: the Windows home, and the virtual screen as PowerShell reports it (for releases whose text states no size). */
  readonly facts: Facts<WinFacts>;
}

interface VirtualScreen { x: number; y: number; width: number; height: number }

export interface WinFacts {
  home: string;
  virtual: VirtualScreen | undefined;
}

/** A lease's session: the contract's methods and the runtime verbs (windows-cursortouch-dispatch.ts) run with. */
export type WindowsSession = KitSession<WinRuntime>;

export function createRuntime(options: WindowsOptions, mcp: WindowsMcp): WinRuntime {
  return { options, mcp, origin: { x: 0, y: 0 }, facts: new Facts() };
}

/** A screen point as Windows-MCP's `loc`. */
export function loc(rt: WinRuntime, p: { x: number; y: number }): [number, number] {
  return [Math.round(p.x + rt.origin.x), Math.round(p.y + rt.origin.y)];
}

/** Run a script through the PowerShell tool; returns the tool's text. */
export async function powershell(rt: WinRuntime, ctx: AdapterContext, script: string, timeoutMs = rt.options.call_timeout_ms): Promise<string> {
  if (script.length > MAX_SCRIPT) throw winError('INVALID_REQUEST', `the PowerShell script would be ${script.length} characters, over the ${MAX_SCRIPT} that fit Windows' command line`);
  const tool = await rt.mcp.need(ctx, 'powershell', 'this call');
  const seconds = Math.ceil(timeoutMs / 1000) + 3;
  return (await rt.mcp.call(ctx, tool, { command: script, timeout: seconds }, { timeoutMs: seconds * 1000 + 5000 })).text;
}

/** The desktop user's home (options.home, else asked once per session). */
export function home(rt: WinRuntime, ctx: AdapterContext): Promise<string> {
  if (rt.options.home) return Promise.resolve(rt.options.home);
  return rt.facts.remember('home', async () => markerPayload('home', await powershell(rt, ctx, homeScript())));
}

/** A core (POSIX-form) guest path as a Windows path. */
export async function guestPath(rt: WinRuntime, ctx: AdapterContext, path: string): Promise<string> {
  // Core joined a relative path to the lease channel's home when the provider offers a channel
  // (it opened that channel to do so): that home, too, means the Windows home.
  const channelHome = (await ctx.channel().catch(() => undefined))?.home;
  const homes = channelHome && channelHome.startsWith('/') && channelHome !== '/' ? ['/root', channelHome] : ['/root'];
  return windowsPath(path, await home(rt, ctx), homes);
}

/** The open windows, from a quick Snapshot (no image, no UI tree). */
export async function windows(rt: WinRuntime, ctx: AdapterContext): Promise<WindowInfo[]> {
  const tool = await rt.mcp.need(ctx, 'snapshot', 'vm_list_windows');
  const reply = await rt.mcp.call(ctx, tool, { use_vision: false, use_ui_tree: false, use_annotation: false, use_dom: false });
  const cursor = parseScreenText(reply.text).cursor;
  if (cursor) rt.pointer = { x: cursor.x - rt.origin.x, y: cursor.y - rt.origin.y };
  return parseWindows(reply.text);
}

/** A window by id or exact title, or NOT_FOUND listing what exists. */
export async function findWindow(rt: WinRuntime, ctx: AdapterContext, window: string): Promise<WindowInfo> {
  const all = await windows(rt, ctx);
  const w = all.find((x) => x.id === window) ?? all.find((x) => x.title === window);
  if (!w) throw winError('NOT_FOUND', `no window "${window}": open windows are ${all.map((x) => `${x.id} "${x.title}"`).join(', ') || 'none'}`, { hint: 'Call vm_list_windows and pass a window id or its exact title.' });
  return w;
}

export const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

/** The virtual screen from PowerShell, or undefined where the guest offers no PowerShell. */
export function virtualScreen(rt: WinRuntime, ctx: AdapterContext): Promise<VirtualScreen | undefined> {
  return rt.facts.remember('virtual', async () => {
    if (!(await rt.mcp.tools(ctx)).tool('powershell')) return undefined;
    const v = JSON.parse(markerPayload('screen', await powershell(rt, ctx, screenScript()))) as Record<string, unknown>;
    const n = (k: string) => (typeof v[k] === 'number' ? (v[k] as number) : NaN);
    if (!(n('width') > 0 && n('height') > 0)) throw winError('INTERNAL', `the guest reported an unusable virtual screen: ${JSON.stringify(v)}`);
    return { x: n('x') || 0, y: n('y') || 0, width: n('width'), height: n('height') };
  });
}
