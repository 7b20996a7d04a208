/** Turning handler outcomes into MCP tool results: structured content plus a short text twin. */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { asVmhubError, toErrorPayload } from '../errors.ts';

/** Strings longer than this are elided from the text twin (they stay whole in structuredContent). */
const TEXT_TWIN_MAX_STRING = 64 * 1024;

export function okResult(structured: Record<string, unknown>, extra: CallToolResult['content'] = []): CallToolResult {
  return { content: [...extra, { type: 'text', text: textTwin(structured) }], structuredContent: structured };
}

/**
 * The text twin of structured content, for clients that only read text. A large file's bytes are
 * not sent twice: doubling a 7 MB base64 payload would push the message past clients' 10 MB line
 * limit (the SDK's stdio transport drops the connection there).
 */
function textTwin(structured: Record<string, unknown>): string {
  return JSON.stringify(structured, (_key, value) =>
    typeof value === 'string' && value.length > TEXT_TWIN_MAX_STRING ? `<${value.length} characters: read structuredContent>` : value);
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
