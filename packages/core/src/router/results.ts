/** Turning handler outcomes into MCP tool results: structured content plus a short text twin. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { asVmhubError, toErrorPayload } from '../errors.ts';

export function okResult(structured: Record<string, unknown>, extra: CallToolResult['content'] = []): CallToolResult {
  return { content: [...extra, { type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** Every failure, whatever was thrown, becomes an isError result with {code, message, retryable, hint}. */
export function errorResult(err: unknown, source?: string): CallToolResult {
  const payload = toErrorPayload(asVmhubError(err, source));
  return {
    isError: true,
    content: [{ type: 'text', text: `${payload.code}: ${payload.message}\nhint: ${payload.hint}${payload.retryable ? ' (retryable)' : ''}` }],
    structuredContent: payload as unknown as Record<string, unknown>,
  };
}
