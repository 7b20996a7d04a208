/**
 * vm_get_file: read through PowerShell in chunks (base64 out of the guest; exact bytes), the
 * size checked against max_bytes on the first chunk. Without PowerShell, Windows-MCP's
 * FileSystem read (text, as it decodes it) is the fallback.
 */
import type { AdapterContext } from '@vmhub/core';
import { winError } from './errors.ts';
import { getScript, parseGet } from './powershell.ts';
import { guestPath, powershell, type WinRuntime } from './runtime.ts';

/** Raw bytes per read: output is not bounded by the command line, only by the MCP message. */
const READ_CHUNK = 1024 * 1024;

export async function getBytes(rt: WinRuntime, ctx: AdapterContext, path: string, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for (let at = 0; ; ) {
    const got = parseGet(await powershell(rt, ctx, getScript(path, at, READ_CHUNK)));
    if ('missing' in got) throw winError('NOT_FOUND', `no file ${path} in the guest`, { details: { path } });
    if ('directory' in got) throw winError('INVALID_REQUEST', `${path} is a directory, not a file`, { details: { path } });
    if (at === 0) {
      size = got.size;
      if (size > maxBytes) throw winError('INVALID_REQUEST', `${path} is ${size} bytes, over max_bytes ${maxBytes}`, { details: { path, size, max_bytes: maxBytes } });
    }
    parts.push(got.data);
    at += got.data.length;
    if (at >= size || got.data.length === 0) break;
  }
  return Buffer.concat(parts);
}

export async function getFile(rt: WinRuntime, ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const tools = await rt.mcp.tools(ctx);
  if (tools.tool('powershell')) return getBytes(rt, ctx, await guestPath(rt, ctx, input.path), input.max_bytes);
  const fs = await rt.mcp.need(ctx, 'filesystem', 'vm_get_file');
  if (!rt.options.home) throw winError('CAPABILITY_UNAVAILABLE', 'this guest\'s Windows-MCP has no PowerShell tool to ask for the home directory: set adapter_options.home (e.g. "C:\\\\Users\\\\vmhub")');
  const path = await guestPath(rt, ctx, input.path);
  const reply = await rt.mcp.call(ctx, fs, { mode: 'read', path, encoding: 'utf-8' });
  if (/^\s*error|not found|does not exist/i.test(reply.text)) throw winError('NOT_FOUND', `Windows-MCP FileSystem read of ${path}: ${reply.text.trim().slice(0, 300)}`);
  const data = Buffer.from(reply.text, 'utf8');
  if (data.length > input.max_bytes) throw winError('INVALID_REQUEST', `${path} is ${data.length} bytes, over max_bytes ${input.max_bytes}`);
  return data;
}
