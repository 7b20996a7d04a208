/**
 * MCP clients nobody here wrote, at the versions fixtures/npm-tools.json pins, driving a vmhub
 * server the way their users do: the MCP Inspector CLI (one process per call, so the server's
 * stdin closes after each), the Vercel AI SDK (its MCP client under generateText) and the OpenAI
 * Agents SDK (its strict-mode schema conversion). The SDK clients run as scripts of their own
 * (fixtures/clients/*.mjs) from a folder where npm installed them, as in a user's project.
 */
import { execFile } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmTool } from './npm-tool.ts';

const run = promisify(execFile);

/** How a client starts the server over stdio. */
export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const installs = {
  inspector: () => npmTool('@modelcontextprotocol/inspector'),
  'ai-sdk': () => npmTool('ai', '@ai-sdk/mcp', 'zod'),
  // @openai/agents reaches MCP through @modelcontextprotocol/client, an optional dependency npm
  // skips without a word when its install fails (CI once ran the session without it): named here,
  // it is installed or the install fails.
  'openai-agents': () => npmTool('@openai/agents', 'zod', '@modelcontextprotocol/client'),
};
export type ClientName = keyof typeof installs;

/** Installs a client (once per version); `skip` says why it could not be. */
export async function installClient(name: ClientName): Promise<{ prefix: string; dir: string; skip?: undefined } | { skip: string }> {
  const got = await installs[name]();
  return got.skip !== undefined ? { skip: got.skip } : { prefix: got.prefix, dir: got.dir };
}

/**
 * One Inspector CLI call (`mcp-inspector --cli … -- <server>`): a process of its own that starts
 * the server, makes the call, prints its JSON and closes the server's stdin.
 */
export async function inspector(dir: string, server: ServerCommand, cli: string[]): Promise<Ran> {
  const env = Object.entries(server.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  try {
    const { stdout, stderr } = await run(process.execPath, [join(dir, 'clients/launcher/build/index.js'), '--cli', ...env, ...cli, '--', server.command, ...server.args], { env: { PATH: server.env.PATH ?? '', HOME: server.env.HOME ?? '' }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: `${e.stderr ?? ''}${e.message}` };
  }
}

/** A tools/call through the Inspector CLI, its result parsed (the process's stderr on failure). */
export async function inspectorCall(dir: string, server: ServerCommand, tool: string, args: Record<string, unknown>): Promise<any> {
  const r = await inspector(dir, server, ['--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args)]);
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`inspector ${tool} (exit ${r.code}) printed no JSON:\n${r.stdout}\n${r.stderr}`);
  }
}

/**
 * Runs an SDK client's scripted session (fixtures/clients/<name>.mjs: lease → exec → screenshot →
 * release on `template`) and returns what it printed.
 */
export async function sdkSession(name: 'ai-sdk' | 'openai-agents', prefix: string, server: ServerCommand, template: string, word: string): Promise<any> {
  const script = join(prefix, `vmhub-${name}.mjs`);
  copyFileSync(new URL(`./fixtures/clients/${name}.mjs`, import.meta.url), script);
  const env = { PATH: server.env.PATH ?? '', HOME: server.env.HOME ?? '', VMHUB_CLIENT_SERVER: JSON.stringify(server), VMHUB_CLIENT_TEMPLATE: template, VMHUB_CLIENT_WORD: word };
  const { stdout, stderr } = await run(process.execPath, [script], { env, cwd: prefix, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }).catch((err) => {
    throw new Error(`${name} session failed: ${(err as Error).message}\n${(err as { stderr?: string }).stderr ?? ''}`);
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return { ...JSON.parse(line), stderr };
  } catch {
    throw new Error(`${name} session printed no JSON:\n${stdout}\n${stderr}`);
  }
}
