/**
 * Structured logs on stderr: one JSON object per line with --json, else `time level msg k=v`.
 * stdout carries only the per-pass summary, so a timer's journal or a script can read it alone.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type Logger = (level: LogLevel, msg: string, data?: Record<string, unknown>) => void;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  json: boolean;
  /** Lowest level written. Default info (env VMHUB_LOG_LEVEL). */
  level?: LogLevel;
  /** Added to every record (the reaper id). */
  base?: Record<string, unknown>;
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions): Logger {
  const min = RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  return (level, msg, data) => {
    if (RANK[level] < min) return;
    const time = new Date().toISOString();
    if (options.json) {
      write(`${JSON.stringify({ time, level, component: 'reaper', msg, ...options.base, ...data })}\n`);
      return;
    }
    const pairs = Object.entries(data ?? {}).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    write(`${time} ${level.padEnd(5)} ${msg}${pairs.length ? ` ${pairs.join(' ')}` : ''}\n`);
  };
}

export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  return value !== undefined && value in RANK ? (value as LogLevel) : undefined;
}
