/**
 * The second path's failures, over a real sshd with fake tools on tool_path: a TCC refusal as
 * osascript prints it is CAPABILITY_UNAVAILABLE naming the grant, a missing cliclick names the
 * fix, and the window capabilities without in_guest_tools say how to turn them on — in the call
 * and in probe().
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import macos from '../src/index.ts';
import { callContext, leaseContext } from './context.ts';
import { startSshd, type TestSshd } from '@vmhub/test-kit';

const unavailable = (re: RegExp) => (e: unknown) => VmhubError.is(e) && e.code === 'CAPABILITY_UNAVAILABLE' && re.test(e.message);

describe('macos: in-guest tools refused or missing', () => {
  let sshd: TestSshd;
  let tools: string;
  before(async () => {
    sshd = await startSshd();
    process.env.VMHUB_TEST_MACOS_TOOLS_KEY = sshd.privateKey;
    tools = mkdtempSync(join(tmpdir(), 'vmhub-macos-faketools-'));
    // osascript as macOS answers without the Accessibility grant; no cliclick at all.
    writeFileSync(join(tools, 'osascript'), '#!/bin/sh\necho "execution error: System Events got an error: osascript is not allowed assistive access. (-1719)" >&2\nexit 1\n');
    chmodSync(join(tools, 'osascript'), 0o755);
  });
  after(async () => {
    await sshd?.stop();
    rmSync(tools, { recursive: true, force: true });
  });

  const open = (options: Record<string, unknown>) => {
    const lease = leaseContext({ 22: sshd.port }, { ssh_user: sshd.user, ssh_key_env: 'VMHUB_TEST_MACOS_TOOLS_KEY', tool_path: `${tools}:/usr/bin:/bin`, ...options });
    return { lease, session: macos.create({}).open(lease) };
  };

  it('a TCC refusal names the Accessibility grant; a missing cliclick names brew; probe() reports both', async () => {
    const { lease, session: opening } = open({ vnc: 'none', in_guest_tools: true });
    const session = await opening;
    try {
      await assert.rejects(session.listWindows!(callContext(lease)), unavailable(/Accessibility/));
      await assert.rejects(session.type!(callContext(lease), { text: 'x' }), unavailable(/Accessibility/));
      await assert.rejects(session.click!(callContext(lease), { x: 1, y: 1, button: 'left', count: 1, modifiers: [] }), unavailable(/brew install cliclick/));
      const p = await session.probe!(callContext(lease));
      assert.match(p.click ?? '', /cliclick not found/);
      assert.match(p.screenshot ?? '', /screencapture not found/);
      assert.match(p.list_windows ?? '', /Accessibility/);
      assert.equal(p.exec, undefined, 'exec works: SSH is fine');
    } finally {
      await session.dispose();
      await lease.close();
    }
  });

  it('without in_guest_tools the window capabilities say how to enable them', async () => {
    const { lease, session: opening } = open({});
    const session = await opening;
    try {
      await assert.rejects(session.listWindows!(callContext(lease)), unavailable(/in_guest_tools: true/));
      await assert.rejects(session.focus!(callContext(lease), { window: 'x' }), unavailable(/in_guest_tools/));
      const p = await session.probe!(callContext(lease));
      for (const c of ['list_windows', 'focus', 'close'] as const) assert.match(p[c] ?? '', /in_guest_tools/);
      assert.match(p.screenshot ?? '', /VNC does not work/, 'no VNC server on guest port 5900 in this test');
    } finally {
      await session.dispose();
      await lease.close();
    }
  });
});
