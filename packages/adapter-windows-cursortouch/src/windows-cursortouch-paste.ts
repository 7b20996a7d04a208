/**
 * vm_paste: put the text on the clipboard, press ctrl+v, put the clipboard's previous text back.
 * The clipboard is Windows-MCP's Clipboard tool (get|set; v0.1's Clipboard-Tool names them
 * paste|copy); releases without one (0.5.x) use PowerShell's Get-/Set-Clipboard instead. Any
 * Unicode reaches the app this way, which Type cannot promise.
 */
import type { AdapterContext } from '@vmhub/core';
import { winError } from './errors.ts';
import { clipGetScript, clipSetScript, markerPayload } from './powershell.ts';
import { powershell, sleep, type WinRuntime } from './runtime.ts';
import { paramEnum } from './tool-map.ts';
import { shortcut } from './windows-cursortouch-key.ts';

/** Let the focused app fetch the clipboard before it is restored. */
const SETTLE_MS = 150;

/** The clipboard's text from a Clipboard get answer ('Clipboard Content: "…"' and similar). */
export function clipboardText(text: string): string {
  const quoted = /^\s*Clipboard Content:\s*"([\s\S]*)"\s*$/i.exec(text);
  if (quoted) return quoted[1]!;
  if (/^\s*(the )?clipboard is empty/i.test(text)) return '';
  const labelled = /^\s*Clipboard (?:text|content)s?\s*:\s?([\s\S]*)$/i.exec(text);
  if (labelled) return labelled[1]!;
  return text;
}

interface Clipboard { get(): Promise<string>; set(text: string): Promise<void> }

async function clipboard(rt: WinRuntime, ctx: AdapterContext): Promise<Clipboard> {
  const tools = await rt.mcp.tools(ctx);
  const tool = tools.tool('clipboard');
  if (tool) {
    const modes = paramEnum(tool, 'mode');
    const get = modes.includes('get') ? 'get' : 'paste';
    const set = modes.includes('set') ? 'set' : 'copy';
    return {
      get: async () => clipboardText((await rt.mcp.call(ctx, tool, { mode: get })).text),
      set: async (text) => { await rt.mcp.call(ctx, tool, { mode: set, text }); },
    };
  }
  if (tools.tool('powershell')) {
    return {
      get: async () => {
        const o = JSON.parse(markerPayload('clip-get', await powershell(rt, ctx, clipGetScript()))) as { text?: unknown };
        return Buffer.from(typeof o.text === 'string' ? o.text : '', 'base64').toString('utf8');
      },
      set: async (text) => { markerPayload('clip-set', await powershell(rt, ctx, clipSetScript(text))); },
    };
  }
  throw winError('CAPABILITY_UNAVAILABLE', `vm_paste needs a clipboard: ${tools.missing('clipboard')}, nor PowerShell`);
}

export async function paste(rt: WinRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  await rt.mcp.need(ctx, 'shortcut', 'vm_paste');
  const clip = await clipboard(rt, ctx);
  const before = await clip.get();
  await clip.set(input.text);
  try {
    await shortcut(rt, ctx, ['ctrl', 'v']);
    await sleep(SETTLE_MS, ctx.signal);
  } finally {
    // An empty clipboard is restored as empty text where the release accepts it (v0.1's
    // Clipboard-Tool refuses empty text: the pasted text then stays on the clipboard).
    if (before !== '') await clip.set(before);
    else await clip.set('').catch(() => undefined);
  }
}
