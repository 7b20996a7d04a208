/**
 * @vmhub/conformance's adapter suite, through the real router and an MCP client, on a real qemu
 * booting tiny-console-agent: screen and input over QMP, files/exec/clone over the guest agent.
 * Typed text is observed in the guest: the shell runs `cat` in raw mode onto the serial port.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import type { AdapterContext, ConsoleHandle } from '@vmhub/core';
import { runAdapterConformance } from '@vmhub/conformance';
import qemuPlugin, { buildGolden, tinyConsoleAgentTemplate } from '@vmhub/provider-qemu';
import consolePlugin from '../src/index.ts';

const root = await mkdtemp(join(tmpdir(), 'vmhub-console-conf-'));
after(() => rm(root, { recursive: true, force: true }));
await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });

async function waitFor(file: string, text: string, ms: number): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const log = await readFile(file, 'latin1').catch(() => '');
    if (log.includes(text)) return log;
    if (Date.now() > end) throw new Error(`serial log never showed ${text}: ${log.slice(-300)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

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
    const context: AdapterContext = {
      lease_id: leaseId, machine, template, signal: new AbortController().signal,
      console: () => (con ??= provider.console!(machine)),
      channel: () => provider.channel!(machine, template),
    };
    const serial = join(root, 'state', machine.identity, 'serial.log');
    const start = `TYPED-${randomUUID().slice(0, 8)}`;
    const setup = consolePlugin.create({});
    await setup.type!(context, { text: `echo ${start} > /dev/ttyS0; stty raw -echo; cat > /dev/ttyS0\n` });
    await waitFor(serial, `${start}\r\n`, 20_000);
    return {
      context,
      effects: {
        async typedText() {
          const log = await readFile(serial, 'latin1');
          return log.slice(log.indexOf(`${start}\r\n`) + start.length + 2);
        },
      },
      async dispose() {
        await provider.destroy(machine);
        await provider.close?.();
      },
    };
  },
});
