/**
 * vm_dispatch verbs: the guest's own Windows-MCP tools, for what vm_* does not cover (Registry,
 * Process, WaitFor, Notification, Scrape, …). `windows_mcp_tools` lists them; `windows_mcp_call`
 * calls one by name with its own arguments and returns its text (images are counted, not sent).
 */
import { Type, type VerbSpec } from '@vmhub/core';
import { winError } from './errors.ts';
import type { WindowsSession } from './runtime.ts';

export const windowsVerbs: Record<string, VerbSpec<WindowsSession>> = {
  windows_mcp_tools: {
    description: 'List the Windows-MCP tools this guest offers (its tools/list names).',
    args: Type.Object({}, { additionalProperties: false }),
    async run(ctx, _args, session) {
      return { tools: (await session.runtime.mcp.tools(ctx)).names };
    },
  },
  windows_mcp_call: {
    description: 'Call one Windows-MCP tool of this guest by name with its own arguments (see windows_mcp_tools); returns its text.',
    args: Type.Object({
      tool: Type.String({ minLength: 1, maxLength: 64 }),
      arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }, { additionalProperties: false }),
    async run(ctx, args, session) {
      const tools = await session.runtime.mcp.tools(ctx);
      const name = args.tool as string;
      if (!tools.has(name)) throw winError('INVALID_REQUEST', `this guest's Windows-MCP has no tool "${name}"; it has ${tools.names.join(', ')}`);
      const listed = { name, inputSchema: {} };
      const reply = await session.runtime.mcp.call(ctx, listed, (args.arguments as Record<string, unknown> | undefined) ?? {});
      return { tool: name, text: reply.text, images: reply.images.length };
    },
  },
};
