/**
 * The templates for the offline test goldens `tiny-console` and `tiny-console-agent`, and what
 * they share with the builder (qemu-golden.ts, tiny-console-recipe.ts): the names, the ready
 * marker and the build hint shown while a golden is missing. Paths only, no I/O: index.ts builds
 * these at import time.
 */
import { join } from 'node:path';
import type { TemplateConfig } from '@vmhub/core';
import { defaultGoldenDir } from './paths.ts';

export const TINY_CONSOLE_READY_MARKER = 'VMHUB-TINY-CONSOLE-READY';
export type GoldenName = 'tiny-console' | 'tiny-console-agent';
export const GOLDEN_NAMES: readonly GoldenName[] = ['tiny-console', 'tiny-console-agent'];
export function buildHint(name: GoldenName): string {
  const pkgs = name === 'tiny-console-agent' ? 'linux-image-amd64, busybox-static, qemu-guest-agent and openssh-server' : 'linux-image-amd64 and busybox-static';
  return `build it with \`vmhub-server golden build ${name}\` (needs Debian packages ${pkgs})`;
}

/** The default template. Paths are resolved from the environment now; existence is checked by availability(). */
export function tinyConsoleTemplate(dir: string = defaultGoldenDir()): TemplateConfig {
  const current = join(dir, 'tiny-console');
  return {
    id: 'tiny-console',
    provider: 'qemu',
    adapter: 'console',
    os: 'linux',
    golden: join(current, 'vmlinuz'),
    description: 'Debian kernel + busybox initramfs with a root shell on the VGA console (test golden; built offline)',
    resources: { cpus: 1, memory_mb: 256 },
    ready_timeout_seconds: 180,
    provider_options: {
      initrd: join(current, 'initrd.img'),
      append: 'console=tty0 console=ttyS0 quiet loglevel=1 panic=-1',
      ready_marker: TINY_CONSOLE_READY_MARKER,
      // Its init mounts a workspace disk at vmhub_ws= (tiny-console-recipe.ts).
      workspace_disk: true,
      build_hint: buildHint('tiny-console'),
    },
  };
}

/**
 * The same console golden plus qemu-ga: files, exec and clone go through the guest agent. Ready
 * when the shell is up (serial marker) and the agent answers guest-ping.
 */
export function tinyConsoleAgentTemplate(dir: string = defaultGoldenDir()): TemplateConfig {
  const base = tinyConsoleTemplate(dir);
  const current = join(dir, 'tiny-console-agent');
  return {
    ...base,
    id: 'tiny-console-agent',
    golden: join(current, 'vmlinuz'),
    description: 'tiny-console with the QEMU guest agent (files, exec and clone through virtio-serial; test golden; built offline)',
    provider_options: { ...base.provider_options, initrd: join(current, 'initrd.img'), guest_agent: true, build_hint: buildHint('tiny-console-agent') },
  };
}

/**
 * tiny-console-agent with per-lease SSH (provider_options.ssh): the lease's key pair is made at
 * create and its public half given to `user` through a NoCloud seed; sshd on guest port 22 is
 * forwarded from 127.0.0.1 (`forward_tcp: true`: any local user reaches the port, sshd takes only
 * the lease's key). Not a built-in template: a server config lists it (docs in the README).
 */
export function tinyConsoleSshTemplate(dir: string = defaultGoldenDir()): TemplateConfig {
  const agent = tinyConsoleAgentTemplate(dir);
  return {
    ...agent,
    id: 'tiny-console-ssh',
    forward_tcp: true,
    description: 'tiny-console-agent with sshd and a per-lease SSH key for `user` from a cloud-init NoCloud seed (test golden; built offline)',
    provider_options: { ...agent.provider_options, ssh: { user: 'user' } },
  };
}
