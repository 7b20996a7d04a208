/**
 * @vmhub/channel-adb — core's GuestChannel over adb, for Android devices, emulators and VMs:
 * exec over shell protocol v2 (exit codes, separate stderr, stdin, binary stdout, kill on the
 * device on timeout), files over adb sync, archives through the device's tar.
 */
import { GuestPorts, VmhubError, type OpenGuestStream } from '@vmhub/core';
import { AdbChannel, DEFAULT_HOME, DEFAULT_MAX_FILE_BYTES } from './adb-channel.ts';
import type { Client } from '@devicefarmer/adbkit';

export { AdbChannel, DEFAULT_HOME, DEFAULT_MAX_FILE_BYTES } from './adb-channel.ts';
export { shQuote } from './command.ts';

const SOURCE = 'channel-adb';
const READY_MS = 20_000;

export interface AdbChannelOptions {
  /** Where the adb server dials the device's adbd (a LeaseContext.forward, a VM's address, …). */
  address: { host: string; port: number };
  adb?: {
    /** The adb server; default 127.0.0.1. */
    host?: string;
    /** Default 5037. */
    port?: number;
    /** adb binary used to start a local server when none answers; default `adb`. */
    bin?: string;
  };
  /** The user adbd runs commands as; default: asked from the device (`id -un`). */
  user?: string;
  /** Home for relative paths and the default cwd; default /data/local/tmp. */
  home?: string;
  /** Cap for putFile and the default cap of getFile; default 100 MiB. */
  maxFileBytes?: number;
  /** Called once by close(), after the device is detached (e.g. to close a port forward). */
  onClose?: () => Promise<void>;
}

async function loadAdbkit(): Promise<{ createClient(o: { host: string; port: number; bin: string }): Client }> {
  // adbkit is CommonJS whose module.exports.default is the Adb class.
  const mod = (await import('@devicefarmer/adbkit')) as unknown as { default: { default: { createClient(o: object): Client } } };
  return mod.default.default;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Attach the device to the adb server and return a channel once a command runs on it. The
 * device may be "offline" for a moment after `adb connect` (the CNXN handshake), so the first
 * command is retried for up to 20 s.
 */
export async function openAdbChannel(options: AdbChannelOptions): Promise<AdbChannel> {
  const server = { host: options.adb?.host ?? '127.0.0.1', port: options.adb?.port ?? 5037 };
  const Adb = await loadAdbkit();
  const client = Adb.createClient({ ...server, bin: options.adb?.bin ?? 'adb' });
  const { host, port } = options.address;
  let serial: string;
  try {
    serial = await client.connect(host, port);
  } catch (err) {
    await options.onClose?.().catch(() => undefined);
    throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] adb server ${server.host}:${server.port} could not connect to the device at ${host}:${port}: ${err instanceof Error ? err.message : String(err)}`, { source: SOURCE, retryable: true, cause: err, hint: 'Check that adbd listens there (adb tcpip 5555 / service.adb.tcp.port) and that the adb binary is installed to start a server.' });
  }
  const make = (user: string): AdbChannel => new AdbChannel({
    client, server, address: { host, port }, serial, user,
    home: options.home ?? DEFAULT_HOME,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    onClose: options.onClose,
  });
  const probe = make(options.user ?? 'unknown');
  const deadline = Date.now() + READY_MS;
  for (;;) {
    let failure: unknown;
    try {
      const r = await probe.exec(['id', '-un'], { cwd: '/', timeoutMs: 10_000, maxOutputBytes: 4096 });
      // Any exit status means commands run; `id` without -u support still answers.
      if (r.exit_code !== null) return make(options.user ?? (r.stdout.toString('utf8').trim() || 'shell'));
      failure = new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] the device ${serial} did not answer a first command within 10 s`, { source: SOURCE });
    } catch (err) {
      failure = err;
    }
    if (Date.now() > deadline || (VmhubError.is(failure) && failure.code === 'POLICY_DENIED')) {
      await probe.close();
      throw failure;
    }
    await sleep(250);
  }
}

/**
 * openAdbChannel for a device reached through a guest-port opener (a provider's `connect`):
 * the adb server dials a loopback forward whose connections each open a stream to `port`; the
 * forward is closed with the channel (or at once if the channel cannot open). For providers
 * whose devices have no address the host can dial: containers without a network, a VM behind an
 * SSH jump host.
 */
export async function openAdbChannelOver(open: OpenGuestStream, port: number, options: Omit<AdbChannelOptions, 'address' | 'onClose'> = {}): Promise<AdbChannel> {
  const ports = new GuestPorts(open);
  try {
    return await openAdbChannel({ ...options, address: await ports.forward(port), onClose: () => ports.close() });
  } catch (err) {
    await ports.close();
    throw err;
  }
}
