/**
 * vm_screenshot: Windows-MCP's Screenshot (or Snapshot / State-Tool with use_vision) image. Its
 * text says what desktop area the image covers; when the image was downscaled (it fits 1920×1080
 * × WINDOWS_MCP_SCREENSHOT_SCALE), the frame is scaled back to the desktop's own size, so vmhub's
 * screen pixels are Windows-MCP's virtual-desktop pixels and clicks need no scaling of their own.
 */
import type { AdapterContext, RawScreen } from '@vmhub/core';
import { winError } from './errors.ts';
import { decodePng, pngSize, resampleRgb } from './png.ts';
import { virtualScreen, type WinRuntime } from './runtime.ts';
import { desktopSize, parseScreenText } from './screen-text.ts';

const MAX_SIDE = 16384;

export async function screenshot(rt: WinRuntime, ctx: AdapterContext): Promise<RawScreen> {
  const tool = await rt.mcp.need(ctx, 'screenshot', 'vm_screenshot');
  const args = tool.name === 'Screenshot'
    ? { use_annotation: false }
    : { use_vision: true, use_annotation: false, use_ui_tree: false, use_dom: false };
  const reply = await rt.mcp.call(ctx, tool, args);
  const image = reply.images.find((i) => /png/i.test(i.mimeType)) ?? reply.images[0];
  if (!image) {
    // 0.8 catches capture failures and answers "Error capturing …. Please try again." as plain text.
    const retry = /error capturing|please try again/i.test(reply.text);
    throw winError('INTERNAL', `Windows-MCP ${tool.name} returned no image: ${reply.text.trim().slice(0, 300) || '(no text either)'}`, { retryable: retry });
  }
  if (!/png/i.test(image.mimeType)) throw winError('INTERNAL', `Windows-MCP ${tool.name} returned a ${image.mimeType} image; this adapter reads PNG`);
  const size = pngSize(image.data);
  const meta = parseScreenText(reply.text);
  // Early releases state no size and downscale silently: ask Windows for the virtual screen then.
  if (!meta.size && meta.scale === undefined) {
    const v = await virtualScreen(rt, ctx);
    if (v) { meta.size = { width: v.width, height: v.height }; meta.origin ??= { x: 0, y: 0 }; }
  }
  const desk = desktopSize(meta, size);
  if (desk.width > MAX_SIDE || desk.height > MAX_SIDE) throw winError('INTERNAL', `Windows-MCP reports a ${desk.width}x${desk.height} desktop, larger than this adapter handles (${MAX_SIDE} px a side)`);
  rt.screen = desk;
  rt.origin = meta.origin ?? { x: 0, y: 0 };
  if (meta.cursor) rt.pointer = { x: meta.cursor.x - rt.origin.x, y: meta.cursor.y - rt.origin.y };
  if (desk.width === size.width && desk.height === size.height) return { data: image.data, format: 'png', ...size };
  return { data: resampleRgb(decodePng(image.data), desk.width, desk.height), format: 'rgb', ...desk };
}
