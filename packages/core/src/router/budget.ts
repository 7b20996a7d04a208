/**
 * No result may exceed what clients accept in one message. The official SDK's stdio reader drops
 * the connection on a line over 10 MiB (and the server with it, for stdio); HTTP clients have
 * similar caps. vmhub keeps every result under a budget well below that, and a tool that would
 * pass it answers RESULT_TOO_LARGE saying how to ask for less instead of killing the session.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { VmhubError } from '../errors.ts';

export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** The serialized size of a result as it goes on the wire (JSON, UTF-8). */
export function resultBytes(result: CallToolResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}

export function assertWithinBudget(tool: string, result: CallToolResult, budget: number): CallToolResult {
  const bytes = resultBytes(result);
  if (bytes <= budget) return result;
  throw new VmhubError('RESULT_TOO_LARGE', `${tool}: the result is ${bytes} bytes, over this server's ${budget}-byte budget for one message`, { details: { bytes, budget } });
}
