/**
 * @vmhub/channel-adb — core's GuestChannel over adb, for Android devices, emulators and VMs:
 * exec over shell protocol v2 (exit codes, separate stderr, stdin, binary stdout, kill on the
 * device on timeout), files over adb sync, archives through the device's tar.
 */
import { GuestPorts, VmhubError, type OpenGuestStream } from '@vmhub/core';
import { AdbChannel, DEFAULT_HOME, DEFAULT_MAX_FILE_BYTES } from './adb-channel.ts';
import { attachDevice, describeServer, type DeviceAddress } from './adb-host.ts';
import { adbClient, adbServerAddress, type AdbServerOptions } from './adb-server.ts';

export { AdbChannel, DEFAULT_HOME, DEFAULT_MAX_FILE_BYTES } from './adb-channel.ts';
export { shQuote } from './command.ts';
export { adbServerAddress, ensureAdbServer, privateAdbSocket, type AdbServerOptions } from './adb-server.ts';
export type { AdbServerAddress, DeviceAddress } from './adb-host.ts';

const SOURCE = 'channel-adb';
const READY_MS = 20_000;

export interface AdbChannelOptions {
  /**
   * Where the adb server dials the device's adbd: `{path}` (a unix socket, e.g. a
   * LeaseContext.forward — `adb connect localfilesystem:<path>`) or `{host, port}` (a VM's
   * address, a device on the network, a TCP forward).
   */
  address: DeviceAddress;
  /**
   * The adb server. Default: vmhub's private server on a unix socket in a 0700 directory
   * (adb-server.ts), so no other local user can reach the device through it. `host`/`port`
   * select a TCP server instead (adb's default 127.0.0.1:5037 is reachable by every local user).
   */
  adb?: AdbServerOptions;
  /** The user adbd runs commands as; default: asked from the device (`id -un`). */
  user?: string;
  /** Home for relative paths and the default cwd; default /data/local/tmp. */
  home?: string;
  /** Cap for putFile and the default cap of getFile; default 100 MiB. */
  maxFileBytes?: number;
  /** Called once by close(), after the device is detached (e.g. to close a port forward). */
  onClose?: () => Promise<void>;
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
  const server = adbServerAddress(options.adb);
  const address = options.address;
  let serial: string;
  let client;
  try {
    client = await adbClient(server, options.adb?.bin ?? 'adb');
    // Through adbkit, which starts a TCP server that does not answer yet (adb-server.ts: the private one).
    await client.version();
    serial = await attachDevice(server, address);
  } catch (err) {
    await options.onClose?.().catch(() => undefined);
    if (VmhubError.is(err)) throw err;
    throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] adb server ${describeServer(server)} could not connect to the device at ${describeServer(address)}: ${err instanceof Error ? err.message : String(err)}`, { source: SOURCE, retryable: true, cause: err, hint: 'Check that adbd listens there (adb tcpip 5555 / service.adb.tcp.port) and that the adb binary is installed to start a server.' });
  }
  const make = (user: string): AdbChannel => new AdbChannel({
    client, server, address, serial, user,
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
 * the adb server dials a forward (a unix socket in a 0700 directory, GuestPorts) whose
 * connections each open a stream to `port`; the
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
