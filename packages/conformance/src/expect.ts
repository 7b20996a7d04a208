/**
 * Assertions that say how to fix what failed (ESLint RuleTester style): every failure names the
 * plugin, what was expected, what came back, and the change that makes it pass.
 */
import assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/server';

export interface ToolError { code: string; message: string; retryable: boolean; hint: string }

function describeResult(r: CallToolResult): string {
  const text = (r.content ?? []).filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join(' ');
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/** The tool must succeed; returns its structured content. */
export function expectOk(r: CallToolResult, what: string, fix: string): Record<string, unknown> {
  if (r.isError) assert.fail(`${what} failed: ${describeResult(r)}\n  fix: ${fix}`);
  assert.ok(r.structuredContent, `${what} returned no structuredContent\n  fix: the router always adds it; do not return undefined from the adapter method`);
  return r.structuredContent as Record<string, unknown>;
}

/** The tool must fail with `code`; returns the error payload. */
export function expectError(r: CallToolResult, code: string, what: string, fix: string): ToolError {
  if (!r.isError) assert.fail(`${what} succeeded but must answer ${code}: ${describeResult(r)}\n  fix: ${fix}`);
  const payload = r.structuredContent as unknown as ToolError | undefined;
  assert.ok(payload && typeof payload.code === 'string', `${what} returned an error without {code, message, retryable, hint}\n  fix: throw VmhubError from @vmhub/core; the router converts it`);
  if (payload.code !== code) assert.fail(`${what} answered ${payload.code} but must answer ${code}: ${payload.message}\n  fix: ${fix}`);
  return payload;
}

export function check(ok: unknown, message: string, fix: string): asserts ok {
  if (!ok) assert.fail(`${message}\n  fix: ${fix}`);
}

export function imageOf(r: CallToolResult): { data: Buffer; mimeType: string } | undefined {
  const image = (r.content ?? []).find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
  return image ? { data: Buffer.from(image.data, 'base64'), mimeType: image.mimeType } : undefined;
}
