/**
 * AdbPoolOptions: config.json `providers.adb-pool` — the devices of the pool and how to reach
 * and reset them; AdbPoolTemplateOptions: what an adb-pool template's `provider_options` may say.
 * Validated with defaults filled by defineProvider (unknown keys refused, naming them).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Type, type Static } from '@vmhub/core';

const ADDRESS = '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$';

export const DeviceSchema = Type.Object({
  /** Where adbd listens: `host:port` (an emulator's or device's `adb tcpip` port, a forwarded port). */
  address: Type.String({ pattern: ADDRESS, description: 'host:port where the device\'s adbd listens' }),
  /** Name in leases, logs and templates' `devices`. Default: the address. Unique in the pool. */
  name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'unique name; default the address' })),
  /** The device's ro.serialno; when set, a device answering with another serial is not claimed. */
  serial: Type.Optional(Type.String({ minLength: 1, description: 'expected ro.serialno (refuse another device at that address)' })),
}, { additionalProperties: false });

export const AdbPoolOptionsSchema = Type.Object({
  devices: Type.Array(DeviceSchema, { default: [], description: 'the pool: [{address: "host:port", name?, serial?}]' }),
  /** Claim files live here; two servers sharing one pool must share this directory. Default `$XDG_STATE_HOME/vmhub/adb-pool` or `~/.local/state/vmhub/adb-pool` (env VMHUB_ADB_POOL_STATE_DIR). */
  state_dir: Type.Optional(Type.String({ minLength: 1, description: 'claims directory; default $XDG_STATE_HOME/vmhub/adb-pool' })),
  /**
   * The adb server the channels go through (one per vmhub host and user), started with `bin` when
   * none answers. Default: vmhub's private server on a unix socket in a 0700 directory
   * (@vmhub/channel-adb), which no other local user can use. `host`/`port` select a TCP server
   * instead (adb's own 127.0.0.1:5037): every local user can then open a shell on the devices.
   */
  adb: Type.Object({
    host: Type.Optional(Type.String({ minLength: 1, description: 'TCP adb server host (default: the private unix-socket server)' })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'TCP adb server port, e.g. 5037 (default: the private unix-socket server)' })),
    socket: Type.Optional(Type.String({ minLength: 1, description: 'unix socket of the adb server; default <tmpdir>/vmhub-adb-<uid>/adb.sock' })),
    bin: Type.String({ minLength: 1, default: 'adb' }),
  }, { additionalProperties: false, default: {} }),
  /** What release does to a device before it returns to the pool (docs/providers/adb-pool.md). */
  reset: Type.Object({
    /** Press HOME after stopping apps, so the next lease starts on the home screen. Default true. */
    home: Type.Boolean({ default: true }),
    /** Reboot the device and wait for sys.boot_completed=1 again. Default false. */
    reboot: Type.Boolean({ default: false }),
    /** How long a reboot may take. Default 180. */
    reboot_timeout_seconds: Type.Integer({ minimum: 5, maximum: 3600, default: 180 }),
  }, { additionalProperties: false, default: {} }),
  /** Largest file put/get moves, in bytes. Default 104857600 (100 MiB). */
  max_file_bytes: Type.Integer({ minimum: 1, default: 104857600 }),
}, { additionalProperties: false });

export type AdbPoolOptions = Static<typeof AdbPoolOptionsSchema>;
export type DeviceConfig = Static<typeof DeviceSchema>;

export const AdbPoolTemplateOptionsSchema = Type.Object({
  /** Only these devices (by name) serve this template. Default: any device of the pool. */
  devices: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'device names allowed for this template; default all' })),
}, { additionalProperties: false });

export type AdbPoolTemplateOptions = Static<typeof AdbPoolTemplateOptionsSchema>;

/** A device with its name filled in. */
export interface Device extends DeviceConfig {
  name: string;
  host: string;
  port: number;
}

export function devicesOf(options: AdbPoolOptions): Device[] {
  return options.devices.map((d) => {
    const i = d.address.lastIndexOf(':');
    const host = d.address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
    return { ...d, name: d.name ?? d.address.replace(/[^A-Za-z0-9._-]/g, '_'), host, port: Number(d.address.slice(i + 1)) };
  });
}

export function stateDir(options: AdbPoolOptions): string {
  if (options.state_dir) return options.state_dir;
  if (process.env.VMHUB_ADB_POOL_STATE_DIR) return process.env.VMHUB_ADB_POOL_STATE_DIR;
  const base = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'vmhub', 'adb-pool');
}
