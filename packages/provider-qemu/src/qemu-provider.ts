/**
 * The provider's methods: create (overlay + detached qemu), ready (process → qmp → guest),
 * destroy by identity, list, console, channel. No daemon: each qemu is a session leader of its own
 * (setsid) that outlives the server, and everything needed to find and verify it later sits in the
 * lease's state directory. Each method lives in its own file; this one wires them to a runtime.
 */
import { join } from 'node:path';
import { VmhubError, type ConsoleHandle, type GuestChannel, type MachineRef, type ProviderContext, type ProviderMethods, type TemplateConfig } from '@vmhub/core';
import { type QemuProviderOptions, templateOptions } from './options.ts';
import { createQemuConsole } from './qemu-console.ts';
import { create } from './qemu-create.ts';
import { destroy } from './qemu-destroy.ts';
import { list } from './qemu-list.ts';
import { ready } from './qemu-ready.ts';
import { createRuntime, requireLive, SOURCE } from './qemu-runtime.ts';
import { availability, status } from './qemu-status.ts';
import { createQgaChannel } from './qga-channel.ts';
import { FILES } from './state-dir.ts';

export function createQemuProviderMethods(options: QemuProviderOptions, context: ProviderContext): ProviderMethods {
  const rt = createRuntime(options, context);
  return {
    status: () => status(rt),
    availability: (template) => availability(rt, template),
    create: (request) => create(rt, request),
    ready: (machine, request) => ready(rt, machine, request),
    destroy: (machine) => destroy(rt, machine),
    list: () => list(rt),

    async console(machine: MachineRef): Promise<ConsoleHandle> {
      const { dir } = await requireLive(rt, machine, 'console');
      return createQemuConsole(rt.pool, machine.identity, dir, rt.qmpTimeoutMs);
    },

    async channel(machine: MachineRef, template: TemplateConfig): Promise<GuestChannel> {
      if (!templateOptions(template.provider_options).guest_agent) {
        throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] this template has no guest agent channel: set provider_options.guest_agent: true and install qemu-guest-agent in the golden`, { source: SOURCE });
      }
      const { dir, record } = await requireLive(rt, machine, 'channel');
      if (!record.guest_agent) {
        throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${machine.identity} was started without a guest agent socket: this template has no guest agent channel`, { source: SOURCE });
      }
      let ch = rt.channels.get(machine.identity);
      if (!ch) {
        ch = createQgaChannel({ socketPath: join(dir, FILES.qga), label: machine.identity, timeoutMs: rt.qmpTimeoutMs });
        rt.channels.set(machine.identity, ch);
      }
      return ch;
    },

    async close(): Promise<void> {
      await Promise.all([...rt.channels.values()].map((c) => c.close().catch(() => undefined)));
      rt.channels.clear();
      await rt.pool.closeAll();
    },
  };
}
