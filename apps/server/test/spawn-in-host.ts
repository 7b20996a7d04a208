/**
 * An MCP stdio client transport over a server process the caller spawns — e.g. inside a network
 * namespace with `host.spawn([...])` from @vmhub/postgres-testing — where the SDK's
 * StdioClientTransport only spawns a command itself. Newline-delimited JSON-RPC over the child's
 * stdin/stdout, as the SDK's transport speaks it; the child's stderr is kept for the Session.
 */
import type { ChildProcess } from 'node:child_process';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BIN, connectOver, type Sandbox, type Session } from './harness.ts';

export class ChildStdioTransport implements Transport {
  readonly #child: ChildProcess;
  readonly #buffer = new ReadBuffer();
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  constructor(child: ChildProcess) {
    this.#child = child;
  }

  get pid(): number | null { return this.#child.pid ?? null; }
  get stderr() { return this.#child.stderr; }

  async start(): Promise<void> {
    this.#child.on('error', (err) => this.onerror?.(err));
    this.#child.on('close', () => this.onclose?.());
    this.#child.stdout!.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try { message = this.#buffer.readMessage(); } catch (err) { this.onerror?.(err as Error); continue; }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#child.stdin!.write(serializeMessage(message))) resolve();
      else this.#child.stdin!.once('drain', resolve);
    });
  }

  /** Closing stdin makes the server stop; one still running after 5 s is killed. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('close', () => resolve()));
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** The built server started by `spawn` (argv and env as the harness's connect() would give them) and a Session over it. */
export async function connectSpawned(box: Sandbox, spawn: (argv: string[], env: NodeJS.ProcessEnv) => ChildProcess, env: Record<string, string> = {}, name = 'itest'): Promise<Session> {
  const child = spawn([process.execPath, BIN], { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn', ...env });
  // connectOver reads only what both transports have: the Transport methods, `stderr` and `pid`.
  return connectOver(new ChildStdioTransport(child) as unknown as StdioClientTransport, name);
}
