/**
 * The published conformance kit on this adapter, against the stand-in Windows-MCP:
 * - in-process (0.8.2 and 0.5.8 tool sets), reached through a lease whose forward() tunnels to it
 *   with core's GuestPorts, effects read from its simulated desktop directly;
 * - through provider-docker on the `windows-standin` golden (providerTarget): the stand-in in a
 *   container, reached through the provider's guest-port path as a Windows guest's port 8000
 *   would be, effects read from its debug API (set VMHUB_WINDOWS_DOCKER=0 to leave it out).
 * The kit types and pastes at the screen's centre, so each target makes the stand-in's Notepad
 * (whose text box typedText reads) the only, full-screen window — in the container through the
 * guest's own Windows-MCP tools (App resize, alt+f4), as one would on a real guest.
 * exec's timeout and cancellation checks are skipped (`sleep: null`): the kit watches
 * GuestChannel.exec, and a Windows lease runs commands through Windows-MCP instead (both are
 * covered in live.test.ts and faults.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { providerTarget, runAdapterConformance, type AdapterTarget, type TargetEffects } from '@vmhub/conformance';
import { VmhubError } from '@vmhub/core';
import dockerProvider, { DOCKER_TEMPLATES } from '@vmhub/provider-docker';
import { startStandin } from '@vmhub/windows-mcp-standin';
import windows from '../src/index.ts';
import { agentFetch } from '../src/http-fetch.ts';
import { standinLease } from './standin.ts';

interface StateView { textBox: string; clipboard: string; pointer: { x: number; y: number }; keys: string[]; scrolls: { x?: number; y?: number; direction: string; wheel_times: number }[] }

function effectsOf(read: () => Promise<StateView>): TargetEffects {
  return {
    typedText: async () => (await read()).textBox,
    clipboard: async () => (await read()).clipboard,
    pointer: async () => ({ ...(await read()).pointer }),
    keys: async () => [...(await read()).keys],
    scrolls: async () => {
      const s = await read();
      return s.scrolls.map((e) => ({ x: e.x ?? s.pointer.x, y: e.y ?? s.pointer.y, direction: e.direction, amount: e.wheel_times }));
    },
  };
}

async function inProcessTarget(version: string): Promise<AdapterTarget> {
  const key = `conformance-${randomBytes(6).toString('hex')}`;
  const standin = await startStandin({ version, authKey: key });
  const l = standinLease(standin, key);
  const s = standin.state;
  for (const w of s.windows.filter((x) => x.process !== 'notepad.exe')) s.close(w);
  Object.assign(s.windows[0]!, { x: 0, y: 0, width: s.screen.width, height: s.screen.height - 48, status: 'Maximized' });
  return {
    context: l.lease,
    dispose: async () => { await l.close(); await standin.close(); },
    effects: effectsOf(async () => s),
  };
}

async function dockerTarget(): Promise<AdapterTarget> {
  const template = DOCKER_TEMPLATES.find((t) => t.id === 'windows-standin');
  if (!template) throw new VmhubError('CAPABILITY_UNAVAILABLE', '[vmhub] [adapter-windows-cursortouch test] provider-docker offers no template windows-standin (its golden folder has no template.json yet)');
  // The template's key is a lease secret: made by the provider at create, read back the way the adapter does.
  const target = await providerTarget({ plugin: dockerProvider, template, instance: `winc${randomBytes(3).toString('hex')}` });
  const key = await target.context.secret?.('WINDOWS_MCP_AUTH_KEY');
  if (!key) {
    await target.dispose();
    throw new VmhubError('CAPABILITY_UNAVAILABLE', '[vmhub] [adapter-windows-cursortouch test] the windows-standin lease has no WINDOWS_MCP_AUTH_KEY secret (template provider_options.lease_secrets)');
  }
  try {
    // core's forward is a unix socket: fetch through it, the URL naming the guest's port.
    const at = await target.context.forward(8000);
    const base = at.path !== undefined ? 'http://127.0.0.1:8000' : `http://${at.host}:${at.port}`;
    const fetchAt = agentFetch(new Agent(), undefined, at.path);
    const headers = { Authorization: `Bearer ${key}` };
    // Arrange the desktop with the guest's own tools: Notepad full-screen and alone.
    const client = new Client({ name: 'vmhub-conformance-setup', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/`), { requestInit: { headers }, fetch: fetchAt }));
    await client.callTool({ name: 'App', arguments: { mode: 'switch', name: 'Documents - File Explorer' } });
    await client.callTool({ name: 'Shortcut', arguments: { shortcut: 'alt+f4' } });
    await client.callTool({ name: 'App', arguments: { mode: 'resize', name: 'Untitled - Notepad', window_loc: [0, 0], window_size: [2560, 1392] } });
    await client.close();
    const read = async () => (await (await fetchAt(`${base}/vmhub-standin/state`, { headers })).json()) as StateView;
    return { ...target, effects: effectsOf(read) };
  } catch (err) {
    await target.dispose();
    throw err;
  }
}

const common = {
  plugin: windows,
  launchApp: 'calc',
  dispatch: [{ verb: 'windows_mcp_tools', args: {} }],
  exec: {
    echo: ['cmd.exe', '/c', 'echo', 'vmhub-conformance'],
    fail: ['powershell.exe', '-NoProfile', '-Command', "[Console]::Error.WriteLine('vmhub-conformance-err'); exit 3"],
    pwd: ['powershell.exe', '-NoProfile', '-Command', "'/' + ((Get-Location).Path -replace '\\\\','/')"],
    cwd: '/C:/Windows',
    cat: ['powershell.exe', '-NoProfile', '-Command', '[Console]::Out.Write([Console]::In.ReadToEnd())'],
    sleep: null,
  },
  timeoutMs: 60_000,
  setupTimeoutMs: 60_000,
};

runAdapterConformance({ ...common, name: 'in-process stand-in 0.8.2', target: () => inProcessTarget('0.8.2') });
runAdapterConformance({ ...common, name: 'in-process stand-in 0.5.8', target: () => inProcessTarget('0.5.8') });
if (process.env.VMHUB_WINDOWS_DOCKER !== '0') {
  runAdapterConformance({ ...common, name: 'docker windows-standin', target: dockerTarget, setupTimeoutMs: 300_000 });
}
