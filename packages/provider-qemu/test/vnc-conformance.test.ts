/**
 * @vmhub/conformance's adapter suite on QEMU's VNC console: a real qemu booting tiny-console, its
 * screen and input driven ONLY over ConsoleHandle.openVnc() + @vmhub/rfb, through the real router
 * and an MCP client. The adapter here is a test fixture, the least an adapter on a VNC console is
 * (screenshot from the live framebuffer, click/type/key/drag/scroll as RFB events); the console
 * adapter (packages/adapter-console) would take the same calls to offer VNC beside QMP. Typed
 * text is observed in the guest: its shell runs `cat` in raw mode onto the serial port.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { defineAdapter, readPackageVersion, Type, VmhubError, type AdapterSession, type ConsoleHandle, type LeaseContext } from '@vmhub/core';
import { runAdapterConformance } from '@vmhub/conformance';
import { testLease, untilFileHas } from '@vmhub/test-kit';
import { connectRfb, parseCombo, RfbError, type RfbClient } from '@vmhub/rfb';
import qemuPlugin, { buildTinyConsoleGolden, tinyConsoleTemplate } from '../src/index.ts';

const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-vnc-conf-'));
after(() => rm(root, { recursive: true, force: true }));
await buildTinyConsoleGolden({ dir: join(root, 'golden') });

const MODIFIER = { ctrl: 'ctrl', shift: 'shift', alt: 'alt', super: 'super' } as const;

/** Key names the router passes (space-separated chords) → keysym lists; unknown names are INVALID_REQUEST. */
function chords(keys: string): number[][] {
  try {
    return keys.trim().split(/\s+/).map(parseCombo);
  } catch (err) {
    if (err instanceof RfbError) throw new VmhubError('INVALID_REQUEST', `[vmhub] [adapter-vnc-fixture] ${err.message}`, { source: 'adapter-vnc-fixture' });
    throw err;
  }
}

function openVncSession(lease: LeaseContext): AdapterSession {
  let rfb: Promise<RfbClient> | undefined;
  const client = () => (rfb ??= (async () => {
    const con: ConsoleHandle = await lease.console();
    const { socket, password } = await con.openVnc!();
    return connectRfb(socket, { password });
  })());
  return {
    async screenshot() {
      const shot = await (await client()).screenshot();
      return { data: shot.data, format: 'rgba', width: shot.width, height: shot.height };
    },
    async screenSize() {
      const c = await client();
      return { width: c.width, height: c.height };
    },
    async click(_ctx, input) {
      const c = await client();
      const mods = input.modifiers.flatMap((m) => parseCombo(MODIFIER[m]));
      for (const k of mods) await c.keyDown(k);
      await c.click(input.x, input.y, { button: input.button, count: input.count });
      for (const k of mods.reverse()) await c.keyUp(k);
      await c.sync();
    },
    // sync(): return once QEMU has read the events (RFB has no acknowledgement otherwise).
    async type(_ctx, input) { const c = await client(); await c.typeText(input.text); await c.sync(); },
    async key(_ctx, input) {
      const list = chords(input.keys);
      const c = await client();
      for (const chord of list) {
        for (const k of chord) await c.keyDown(k);
        for (const k of [...chord].reverse()) await c.keyUp(k);
      }
      await c.sync();
    },
    async drag(_ctx, input) { const c = await client(); await c.drag(input.from, input.to, input.button); await c.sync(); },
    async scroll(_ctx, input) { const c = await client(); await c.scroll(input.x, input.y, input.direction, input.amount); await c.sync(); },
    async dispose() { await (await rfb?.catch(() => undefined))?.close(); },
  };
}

const vncFixture = defineAdapter({
  id: 'vnc-fixture',
  version: readPackageVersion(import.meta.url),
  contractVersion: 2,
  capabilities: ['screenshot', 'click', 'type', 'key', 'drag', 'scroll'],
  options: Type.Object({}, { additionalProperties: false }),
  create: () => ({ open: (lease) => openVncSession(lease) }),
});

runAdapterConformance({
  plugin: vncFixture,
  timeoutMs: 120_000,
  async target() {
    const template = tinyConsoleTemplate(join(root, 'golden'));
    const prefix = `vmhub-v${randomUUID().slice(0, 8)}-`;
    const leaseId = randomUUID();
    const provider = qemuPlugin.create({ state_dir: join(root, 'state') }, { identityPrefix: prefix, log: () => {} });
    const machine = await provider.create({ lease_id: leaseId, identity: `${prefix}${leaseId}`, template, signal: AbortSignal.timeout(60_000) });
    let con: Promise<ConsoleHandle> | undefined;
    // tiny-console has no channel: channel() throws.
    const context = testLease({ lease_id: leaseId, machine, template, console: () => (con ??= provider.console!(machine)) });
    const serial = join(root, 'state', machine.identity, 'serial.log');
    const start = `TYPED-${randomUUID().slice(0, 8)}`;
    try {
      await provider.ready(machine, { template, signal: AbortSignal.timeout(240_000), stage: () => {} });
      // Set the guest up over VNC with a client of its own, closed before the suite's session opens.
      const { socket, password } = await (await context.console()).openVnc!();
      const setup = await connectRfb(socket, { password });
      await setup.typeText(`echo ${start} > /dev/ttyS0; stty raw -echo; cat > /dev/ttyS0\n`);
      await setup.sync();
      await setup.close();
      await untilFileHas(serial, `${start}\r\n`, 30_000);
    } catch (err) {
      await (await con?.catch(() => undefined))?.close();
      await provider.destroy(machine); // a failed setup has no dispose() to stop the machine
      throw err;
    }
    return {
      context,
      effects: {
        // The guest takes its keys from its keyboard queue at its own pace (under TCG, tens of ms
        // a key) after QEMU read them: wait until the serial log has stopped growing.
        async typedText() {
          let log = await readFile(serial, 'latin1');
          for (const end = Date.now() + 15_000; Date.now() < end;) {
            await new Promise((r) => setTimeout(r, 400));
            const now = await readFile(serial, 'latin1');
            if (now === log) break;
            log = now;
          }
          return log.slice(log.indexOf(`${start}\r\n`) + start.length + 2);
        },
      },
      async dispose() {
        await (await con?.catch(() => undefined))?.close();
        await provider.destroy(machine);
      },
    };
  },
});
