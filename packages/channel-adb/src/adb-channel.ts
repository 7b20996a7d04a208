/**
 * AdbChannel: core's GuestChannel over adb. One adb server per vmhub host and user (default the
 * private one on a unix socket in a 0700 directory, adb-server.ts; started when none answers);
 * the device is attached with `adb connect <spec>` (`localfilesystem:<path>` for a
 * LeaseContext.forward, `host:port` for a VM's address or a device on the network) and
 * detached on close.
 */
import type { Readable } from 'node:stream';
import type { Socket } from 'node:net';
import { errnoFromText, fsError, VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type PutFileOptions } from '@vmhub/core';
import type { Client, DeviceClient } from '@devicefarmer/adbkit';
import { AdbFail, attachDevice, detachDevice, openService, type AdbServerAddress, type DeviceAddress } from './adb-host.ts';
import { DEVICE_GONE, deviceLost, execOnDevice, type DeviceRef } from './adb-exec.ts';
import { getFileOverSync, putFileOverSync, type FileContext } from './adb-files.ts';

const SOURCE = 'channel-adb';
export const DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024;
export const DEFAULT_HOME = '/data/local/tmp';


export interface ChannelSettings {
  client: Client;
  server: AdbServerAddress;
  address: DeviceAddress;
  serial: string;
  user: string;
  home: string;
  maxFileBytes: number;
  onClose?: () => Promise<void>;
}

export class AdbChannel implements GuestChannel, DeviceRef {
  readonly home: string;
  /** The user adbd runs commands as (`shell` on Android, `root` on a root adbd). */
  readonly user: string;
  readonly serial: string;
  readonly server: AdbServerAddress;
  readonly #s: ChannelSettings;
  readonly #device: DeviceClient;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(settings: ChannelSettings) {
    this.#s = settings;
    this.home = settings.home;
    this.user = settings.user;
    this.serial = settings.serial;
    this.server = settings.server;
    this.#device = settings.client.getDevice(settings.serial);
  }

  /** Open a service; if the adb server lost the device (or restarted), reconnect it once. */
  async open(service: string, signal?: AbortSignal): Promise<Socket> {
    this.#check();
    try {
      return await openService(this.server, this.serial, service, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      const refused = ['ECONNREFUSED', 'ENOENT'].includes((err as NodeJS.ErrnoException).code ?? ''); // ENOENT: a unix-socket server's socket is gone
      if (!(err instanceof AdbFail && DEVICE_GONE.test(err.reason)) && !refused) throw this.#unreachable(err);
      try {
        // adbkit's connection starts the server again if it is gone (adb-server.ts).
        await this.#s.client.version();
        await attachDevice(this.server, this.#s.address);
        return await openService(this.server, this.serial, service, signal);
      } catch (again) {
        throw this.#unreachable(again);
      }
    }
  }

  #unreachable(err: unknown): VmhubError {
    if (VmhubError.is(err)) return err;
    const reason = err instanceof AdbFail ? err.reason : err instanceof Error ? err.message : String(err);
    if (/unauthorized/i.test(reason)) {
      return new VmhubError('POLICY_DENIED', `[vmhub] [${SOURCE}] the Android device ${this.serial} has not authorized this host's adb key`, { source: SOURCE, hint: 'Accept the USB debugging prompt on the device, or install ~/.android/adbkey.pub of the vmhub host in the device\'s /data/misc/adb/adb_keys.', cause: err });
    }
    return deviceLost(this.serial, `(adb: ${reason})`, err);
  }

  #check(): void {
    if (this.#closed) throw new VmhubError('LEASE_EXPIRED', `[vmhub] [${SOURCE}] the adb channel to ${this.serial} is closed`, { source: SOURCE });
  }

  #userCheck(user: string | undefined): void {
    if (user !== undefined && user !== this.user) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] adb runs every command on ${this.serial} as "${this.user}"; running as "${user}" is not supported`, { source: SOURCE, details: { user } });
    }
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.#check();
    this.#userCheck(options.user);
    return execOnDevice(this, {
      argv,
      stdin: options.stdin,
      cwd: options.cwd ?? this.home,
      env: options.env,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
      signal: options.signal,
    });
  }

  #files(): FileContext {
    return { device: this.#device, user: this.user, exec: (argv, timeoutMs) => this.exec(argv, { cwd: '/', timeoutMs }) };
  }

  async putFile(path: string, data: Buffer, options: PutFileOptions = {}): Promise<void> {
    this.#check();
    this.#userCheck(options.user);
    const cap = this.#s.maxFileBytes;
    if (data.length > cap) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] file for ${path} is ${data.length} bytes, over the cap of ${cap} bytes (maxFileBytes): raise the provider's max_file_bytes`, { source: SOURCE, details: { path, size: data.length, cap } });
    }
    await this.#guard(() => putFileOverSync(this.#files(), path, data, options.mode));
  }

  async getFile(path: string, options: GetFileOptions = {}): Promise<Buffer> {
    this.#check();
    return this.#guard(() => getFileOverSync(this.#files(), path, options.maxBytes ?? this.#s.maxFileBytes));
  }

  /** Unpack with the device's tar (toybox has one) reading the stream on stdin. */
  async putArchive(dir: string, tar: Readable, options: { user?: string } = {}): Promise<void> {
    this.#check();
    this.#userCheck(options.user);
    const r = await this.exec(['sh', '-c', 'mkdir -p "$1" && exec tar -x -f - -C "$1"', 'sh', dir], { stdin: tar as never, cwd: '/', timeoutMs: 600_000, maxOutputBytes: 65_536 });
    if (r.exit_code === 0) return;
    const text = r.stderr.toString('utf8').trim() || r.stdout.toString('utf8').trim();
    if (r.timed_out) throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] unpacking into ${dir} took longer than 600 s`, { source: SOURCE });
    const errno = errnoFromText(text);
    throw (errno && fsError(errno, { op: 'unpack', path: dir, user: this.user, source: SOURCE }))
      ?? new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] tar could not unpack the archive into ${dir} (exit ${r.exit_code}): ${text.slice(0, 500)}`, { source: SOURCE, details: { path: dir } });
  }

  /** adbkit failures that mean the device left become the channel's device-lost error. */
  async #guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (VmhubError.is(err)) throw err;
      const text = err instanceof Error ? err.message : String(err);
      if (DEVICE_GONE.test(text) || (err as NodeJS.ErrnoException).code === 'ECONNREFUSED' || /ECONNRESET|EPIPE/.test(text)) throw deviceLost(this.serial, 'during a file transfer', err);
      throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] adb sync on ${this.serial}: ${text}`, { source: SOURCE, cause: err });
    }
  }

  /** Detach the device from the adb server (`adb disconnect`) and run onClose. Idempotent. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await detachDevice(this.server, this.#s.address).catch(() => undefined);
      await this.#s.onClose?.();
    })();
    return this.#closing;
  }
}
