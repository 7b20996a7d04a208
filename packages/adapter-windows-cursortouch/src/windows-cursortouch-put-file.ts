/**
 * vm_put_file: the bytes go in chunks of options.chunk_bytes through PowerShell (base64 decoded
 * in the guest; exact, binary-safe) into "<path>.vmhub-part", renamed over the path at the end so
 * no reader sees half a file. Windows-MCP's FileSystem tool is text-only (and relative paths
 * mean the Desktop), so it is used only when the guest offers no PowerShell — for UTF-8 text.
 * There are no POSIX modes on Windows: `mode` is ignored.
 */
import type { AdapterContext } from '@vmhub/core';
import { winError } from './errors.ts';
import { markerPayload, putScript, removeScript, renameScript } from './powershell.ts';
import { guestPath, powershell, type WinRuntime } from './runtime.ts';

/** Write `data` at the Windows path `path`, exactly. */
export async function putBytes(rt: WinRuntime, ctx: AdapterContext, path: string, data: Buffer): Promise<void> {
  const part = `${path}.vmhub-part`;
  const step = rt.options.chunk_bytes;
  try {
    for (let at = 0; at === 0 || at < data.length; at += step) {
      const chunk = data.subarray(at, at + step);
      const size = Number(markerPayload('put', await powershell(rt, ctx, putScript(part, chunk, at === 0 ? 'create' : 'append'))));
      if (size !== Math.min(data.length, at + step)) throw winError('INTERNAL', `writing ${path}: the guest file is ${size} bytes after ${Math.min(data.length, at + step)} were sent`);
      if (data.length === 0) break;
    }
    markerPayload('rename', await powershell(rt, ctx, renameScript(part, path)));
  } catch (err) {
    await removeFile(rt, ctx, part).catch(() => undefined);
    throw err;
  }
}

export async function removeFile(rt: WinRuntime, ctx: AdapterContext, path: string): Promise<void> {
  markerPayload('remove', await powershell(rt, ctx, removeScript(path)));
}

export async function putFile(rt: WinRuntime, ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const tools = await rt.mcp.tools(ctx);
  const path = tools.tool('powershell') || rt.options.home ? await guestPath(rt, ctx, input.path) : undefined;
  if (tools.tool('powershell')) return putBytes(rt, ctx, path!, input.data);
  const fs = await rt.mcp.need(ctx, 'filesystem', 'vm_put_file');
  const text = input.data.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(input.data) || text.includes('\0')) {
    throw winError('CAPABILITY_UNAVAILABLE', 'this guest\'s Windows-MCP has no PowerShell tool, and its FileSystem tool writes text only: binary files cannot be written', { hint: 'Enable the PowerShell tool in the guest\'s Windows-MCP (--tools / --exclude-tools), or send UTF-8 text.' });
  }
  if (!path) throw winError('CAPABILITY_UNAVAILABLE', 'this guest\'s Windows-MCP has no PowerShell tool to ask for the home directory: set adapter_options.home (e.g. "C:\\\\Users\\\\vmhub")');
  const reply = await rt.mcp.call(ctx, fs, { mode: 'write', path, content: text, encoding: 'utf-8', append: false });
  if (/^\s*error/i.test(reply.text)) throw winError('INTERNAL', `Windows-MCP FileSystem write of ${path} failed: ${reply.text.trim().slice(0, 300)}`);
}
