/**
 * No result may exceed what clients accept in one message. The official SDK's stdio reader drops
 * the connection on a line over 10 MiB (and the server with it, for stdio); HTTP clients have
 * similar caps. vmhub keeps every result under a budget well below that, and a tool that would
 * pass it answers RESULT_TOO_LARGE saying how to ask for less instead of killing the session.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { VmhubError } from '../errors.ts';

export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** Room for the envelope around the parts counted below (keys, brackets, mime types, ids). */
const ENVELOPE = 1024;

/**
 * The size of a result on the wire (JSON, UTF-8), without serializing its images again: their
 * base64 is ASCII and needs no escaping, so its length is its size (a second JSON.stringify of a
 * screenshot cost 2.4 ms of its ~80 ms). Text and structured content are measured as JSON.
 */
export function resultBytes(result: CallToolResult): number {
  let bytes = ENVELOPE + (result.structuredContent ? Buffer.byteLength(JSON.stringify(result.structuredContent)) : 0);
  for (const c of result.content ?? []) {
    if (c.type === 'image' || c.type === 'audio') bytes += c.data.length;
    else bytes += Buffer.byteLength(JSON.stringify(c));
  }
  return bytes;
}

export function assertWithinBudget(tool: string, result: CallToolResult, budget: number): CallToolResult {
  const bytes = resultBytes(result);
  if (bytes <= budget) return result;
  throw new VmhubError('RESULT_TOO_LARGE', `${tool}: the result is ${bytes} bytes, over this server's ${budget}-byte budget for one message`, { details: { bytes, budget } });
}
