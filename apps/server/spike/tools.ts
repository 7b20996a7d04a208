/**
 * Spike (SDK v2): one McpServer factory shared by the stdio and HTTP entries. Tools:
 *   render  inputSchema/outputSchema; progress per step; structuredContent + image content
 *   wait    runs until cancelled (or `seconds`), reports how it ended to SPIKE_LOG
 *   echo    trivial, for round-trip timing
 * Every result says what the handler could see of the caller: protocol revision, client name and
 * capabilities (per-request envelope in 2026-07-28, initialize in 2025), principal (ctx.http.authInfo).
 */
import { appendFileSync } from 'node:fs';
import { McpServer, type McpRequestContext, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';

// A 1x1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const ENVELOPE_VERSION = 'io.modelcontextprotocol/protocolVersion';
const ENVELOPE_CLIENT = 'io.modelcontextprotocol/clientInfo';
const ENVELOPE_CAPS = 'io.modelcontextprotocol/clientCapabilities';

function log(event: Record<string, unknown>): void {
  const file = process.env.SPIKE_LOG;
  if (file) appendFileSync(file, JSON.stringify({ pid: process.pid, at: Date.now(), ...event }) + '\n');
}

/** What a handler learns of its caller, per request. */
function caller(mcp: McpServer, ctx: ServerContext, era: string) {
  const env = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const caps = (env[ENVELOPE_CAPS] ?? mcp.server.getClientCapabilities()) as { extensions?: Record<string, unknown> } | undefined;
  return {
    era,
    pid: process.pid,
    protocol: (env[ENVELOPE_VERSION] as string | undefined) ?? mcp.server.getNegotiatedProtocolVersion() ?? 'unknown',
    client: ((env[ENVELOPE_CLIENT] as { name?: string } | undefined)?.name) ?? mcp.server.getClientVersion()?.name ?? 'unknown',
    // The deprecated accessors, to compare with the envelope.
    client_via_getClientVersion: mcp.server.getClientVersion()?.name ?? null,
    extensions: Object.keys(caps?.extensions ?? {}),
    principal: (ctx.http?.authInfo?.extra as { principal?: string } | undefined)?.principal ?? null,
    session: ctx.sessionId ?? null,
  };
}

const Who = z.object({ era: z.string(), pid: z.number(), protocol: z.string(), client: z.string(), client_via_getClientVersion: z.string().nullable(), extensions: z.array(z.string()), principal: z.string().nullable(), session: z.string().nullable() });

export function createSpikeServer(rc: McpRequestContext | { era: string }): McpServer {
  const mcp = new McpServer({ name: 'vmhub-spike', version: '0.0.0' }, { capabilities: { tools: {} } });

  mcp.registerTool('render', {
    title: 'Render',
    description: 'Reports progress per step, then returns a picture and structured content.',
    inputSchema: z.object({ steps: z.number().int().min(1).max(20), step_ms: z.number().int().min(0).max(2000).default(20) }),
    outputSchema: z.object({ steps: z.number(), progress_token: z.union([z.string(), z.number()]).nullable(), who: Who }),
  }, async ({ steps, step_ms }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (ctx.mcpReq.signal.aborted) break;
      await new Promise((r) => setTimeout(r, step_ms));
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
    }
    const structured = { steps, progress_token: token ?? null, who: caller(mcp, ctx, rc.era) };
    return {
      structuredContent: structured,
      content: [{ type: 'text', text: JSON.stringify(structured) }, { type: 'image', data: PNG, mimeType: 'image/png' }],
    };
  });

  mcp.registerTool('wait', {
    description: 'Waits until cancelled or `seconds` elapse.',
    inputSchema: z.object({ tag: z.string(), seconds: z.number().max(60).default(30) }),
  }, async ({ tag, seconds }, ctx) => {
    const started = Date.now();
    log({ tag, event: 'started', era: rc.era });
    const how = await new Promise<string>((resolve) => {
      const t = setTimeout(() => resolve('elapsed'), seconds * 1000);
      ctx.mcpReq.signal.addEventListener('abort', () => { clearTimeout(t); resolve('aborted'); }, { once: true });
      // A progress beat so the HTTP answer becomes a stream (as a long vmhub call would).
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 0 } });
    });
    log({ tag, event: how, after_ms: Date.now() - started, reason: String(ctx.mcpReq.signal.reason ?? '') });
    return { content: [{ type: 'text', text: how }] };
  });

  mcp.registerTool('echo', {
    description: 'Echoes.',
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.object({ n: z.number() }),
  }, async ({ n }) => ({ structuredContent: { n }, content: [{ type: 'text', text: String(n) }] }));

  return mcp;
}
