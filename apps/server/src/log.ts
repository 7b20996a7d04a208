/**
 * Structured logs on stderr (stdout carries the MCP protocol). VMHUB_LOG_LEVEL=debug|info|warn|error.
 * Every string in a line (the message and the data, at any depth) goes through scrub.ts scrubText
 * first, so a URL with credentials or a `token=` in an error message is logged as `***`.
 */
import { scrubDeep, scrubText } from './scrub.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type Level = keyof typeof LEVELS;
const threshold = LEVELS[(process.env.VMHUB_LOG_LEVEL as Level) ?? 'info'] ?? LEVELS.info;

export function log(level: Level, msg: string, data?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  process.stderr.write(JSON.stringify({ t: new Date().toISOString(), level, msg: scrubText(msg), ...scrubDeep(data) }) + '\n');
}
