/**
 * The built vmhub-server over HTTP for tests: `node <bin> --http …` with the environment the
 * test gives, resolved with its URL once it prints `… at http://<host>:<port>/mcp`.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface HttpServerOptions {
  /** The server's entry file (apps/server/dist/bin.js, or an installed one), run with this Node. */
  bin: string;
  /** The whole environment the server gets (nothing is inherited). */
  env: Record<string, string>;
  /** Arguments after `--http` (default: `--port 0`, a free port the server picks). */
  args?: string[];
  /** How long the server may take to print its URL (ms). */
  readyMs?: number;
}

export interface HttpServer {
  child: ChildProcess;
  /** `http://<host>:<port>` */
  base: string;
  /** `<base>/mcp` */
  url: string;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** Whether the process has exited. */
  exited(): boolean;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/** Start the server; rejects with its stderr when it exits (or stays silent) before printing its URL. */
export function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const child = spawn(process.execPath, [options.bin, '--http', ...(options.args ?? ['--port', '0'])], { env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let exited = false;
  const gone = new Promise<void>((r) => child.once('exit', () => { exited = true; r(); }));
  const server = (base: string): HttpServer => ({
    child, base, url: `${base}/mcp`,
    stderr: () => stderr,
    exited: () => exited,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the server printed no URL in ${options.readyMs ?? 30_000} ms: ${stderr}`)); }, options.readyMs ?? 30_000);
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /at (http:\/\/\S+)\/mcp/.exec(stderr);
      if (m) { clearTimeout(timer); resolve(server(m[1]!)); }
    });
    child.on('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`server exited ${code ?? signal}: ${stderr}`)); });
  });
}
