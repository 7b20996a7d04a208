/**
 * @vmhub/conformance's adapter suite, through the real router and an MCP client, on a real qemu
 * booting tiny-console-agent: screen and input over QMP, files/exec/clone over the guest agent.
 * Typed text is observed in the guest: the shell runs `cat` in raw mode onto the serial port.
 * The target plays core's part for the lease: console and channel opened once, closed at dispose.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import type { ConsoleHandle, GuestChannel } from '@vmhub/core';
import { runAdapterConformance } from '@vmhub/conformance';
import { callContext, testLease, untilFileHas } from '@vmhub/test-kit';
import qemuPlugin, { buildGolden, tinyConsoleAgentTemplate } from '@vmhub/provider-qemu';
import consolePlugin from '../src/index.ts';

const root = await mkdtemp(join(tmpdir(), 'vmhub-console-conf-'));
after(() => rm(root, { recursive: true, force: true }));
await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });

runAdapterConformance({
  plugin: consolePlugin,
  timeoutMs: 120_000,
  async target() {
    const template = tinyConsoleAgentTemplate(join(root, 'golden'));
    const prefix = `vmhub-c${randomUUID().slice(0, 8)}-`;
    const leaseId = randomUUID();
    const provider = qemuPlugin.create({ state_dir: join(root, 'state') }, { identityPrefix: prefix, log: () => {} });
    const machine = await provider.create({ lease_id: leaseId, identity: `${prefix}${leaseId}`, template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { template, signal: AbortSignal.timeout(240_000), stage: () => {} });
    let con: Promise<ConsoleHandle> | undefined;
    let ch: Promise<GuestChannel> | undefined;
    const context = testLease({ lease_id: leaseId, machine, template, console: () => (con ??= provider.console!(machine)), channel: () => (ch ??= provider.channel!(machine, template)) });
    const serial = join(root, 'state', machine.identity, 'serial.log');
    const start = `TYPED-${randomUUID().slice(0, 8)}`;
    // A setup session of its own, disposed before the suite opens the one it drives.
    const setup = await consolePlugin.create({}).open(context);
    try {
      await setup.type!(callContext(context), { text: `echo ${start} > /dev/ttyS0; stty raw -echo; cat > /dev/ttyS0\n` });
    } finally {
      await setup.dispose();
    }
    await untilFileHas(serial, `${start}\r\n`, 20_000);
    return {
      context,
      effects: {
        async typedText() {
          const log = await readFile(serial, 'latin1');
          return log.slice(log.indexOf(`${start}\r\n`) + start.length + 2);
        },
      },
      async dispose() {
        for (const handle of [con, ch]) await (await handle?.catch(() => undefined))?.close();
        await provider.destroy(machine);
      },
    };
  },
});
