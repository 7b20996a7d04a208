/**
 * Conformance targets on this host: a real sshd (guest port 22) and a live X desktop whose
 * x11vnc (or the ARD stand-in in front of it) is guest port 5900; the stand-in tools on the
 * adapter's tool_path. Effects are read from the desktop itself: the sink xterm's file, the X
 * pointer.
 */
import type { AdapterTarget } from '@vmhub/conformance';
import { leaseContext } from './context.ts';
import { startDesktop, type Desktop } from './desktop.ts';
import { startSshd } from '@vmhub/test-kit';

export interface HostTargetOptions {
  /** adapter_options besides the SSH ones. */
  adapterOptions: Record<string, unknown>;
  /** Put something in front of x11vnc (the ARD stand-in); returns the port 5900 maps to. */
  front?: (desk: Desktop) => Promise<{ port: number; stop(): Promise<void> }>;
}

export async function hostTarget(o: HostTargetOptions): Promise<AdapterTarget & { desk: Desktop }> {
  const sshd = await startSshd();
  const desk = await startDesktop();
  const front = o.front ? await o.front(desk) : undefined;
  const env = `VMHUB_TEST_MACOS_KEY_${sshd.port}`;
  process.env[env] = sshd.privateKey;
  const lease = leaseContext({ 22: sshd.port, 5900: front?.port ?? desk.vncPort }, {
    ssh_user: sshd.user, ssh_key_env: env, tool_path: `${desk.toolsDir}:/usr/local/bin:/usr/bin:/bin`, ...o.adapterOptions,
  });
  return {
    desk,
    context: lease,
    async dispose() {
      await lease.close();
      await front?.stop();
      await desk.stop();
      await sshd.stop();
    },
    effects: {
      typedText: async () => desk.typed(),
      pointer: async () => {
        const out = desk.x(['xdotool', 'getmouselocation', '--shell']);
        return { x: Number(/^X=(\d+)/m.exec(out)?.[1]), y: Number(/^Y=(\d+)/m.exec(out)?.[1]) };
      },
    },
  };
}
