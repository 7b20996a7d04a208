/**
 * One exec over shell protocol v2: a fresh `shell,v2,raw:` service per call on the device's
 * transport (adb multiplexes them over the one TCP connection to adbd, so a call costs a local
 * socket and a few packets, not a new device connection).
 *
 * Timeout or abort: the program is killed ON THE DEVICE from a second shell (`kill -9 -<pid>`,
 * the pid printed first by the command line), then the stream is dropped, and exec resolves at
 * once with `exit_code: null, timed_out: true`. Dropping the stream alone is not enough: adbd then
 * signals only the shell, and its background children live on.
 *
 * The device going away mid-call (the service socket closes with no exit packet) is a
 * VmhubError INTERNAL, retryable, naming the device: the channel cannot tell a device that
 * rebooted from one that is gone for good; the server asks the provider and answers
 * MACHINE_LOST when the machine is gone.
 */
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { ExecResult } from '@vmhub/core';
import { CappedOutput, VmhubError } from '@vmhub/core';
import { openService, type AdbServerAddress } from './adb-host.ts';
import { buildCommand, killCommand } from './command.ts';
import { ID_CLOSE_STDIN, ID_EXIT, ID_STDERR, ID_STDIN, ID_STDOUT, MAX_PAYLOAD, PacketDecoder, packet, stdinPackets } from './shell-v2.ts';

const SOURCE = 'channel-adb';
/** The host protocol's length prefix is four hex digits. */
export const MAX_COMMAND_BYTES = 0xffff - 'shell,v2,raw:'.length;
const KILL_WAIT_MS = 3000;

export interface ExecRequest {
  argv: string[];
  /** Bytes, text, or a stream (put_archive) written with backpressure, then stdin closed. */
  stdin?: Buffer | string | Readable;
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export interface DeviceRef {
  server: AdbServerAddress;
  serial: string;
  /** Opens a service, reconnecting the device once if the adb server lost it. */
  open(service: string, signal?: AbortSignal): ReturnType<typeof openService>;
}

/** The adb server's words for "it does not have this device (right now)". */
export const DEVICE_GONE = /not found|offline|no devices|device still (connecting|authorizing)|closed/i;

function empty(): ExecResult {
  return { exit_code: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: true, truncated: false };
}

export function deviceLost(serial: string, what: string, cause?: unknown): VmhubError {
  return new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] the Android device ${serial} went away ${what}: its adb connection closed (device rebooted, adbd stopped, or the machine is gone)`, {
    source: SOURCE,
    retryable: true,
    hint: 'Retry once: if the device is gone, the lease ends with MACHINE_LOST; otherwise the channel reconnects.',
    details: { serial, reason: 'device_lost' },
    cause,
  });
}

/** Kill the command's process group on the device; never throws, never waits past KILL_WAIT_MS. */
async function killOnDevice(device: DeviceRef, pid: number): Promise<void> {
  const timer = AbortSignal.timeout(KILL_WAIT_MS);
  const expired = new Promise<void>((resolve) => timer.addEventListener('abort', () => resolve(), { once: true }));
  const kill = async (): Promise<void> => {
    const socket = await device.open(`shell,v2,raw:${killCommand(pid)}`, timer);
    for (const p of stdinPackets(Buffer.alloc(0))) socket.write(p);
    await new Promise<void>((resolve) => {
      socket.on('data', () => {});
      socket.on('error', () => {});
      socket.once('close', () => resolve());
      timer.addEventListener('abort', () => { socket.destroy(); resolve(); }, { once: true });
      socket.resume();
    });
  };
  // The device may be unreachable (reconnecting it can take adb long): then dropping the service
  // socket is all that can be done.
  await Promise.race([kill().catch(() => undefined), expired]);
}

/** Pipe a stream into stdin packets, pausing while the socket is full. */
function streamStdin(input: Readable, socket: Socket, fail: (err: Error) => void): void {
  input.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let ok = true;
    for (let i = 0; i < bytes.length; i += MAX_PAYLOAD) ok = socket.write(packet(ID_STDIN, bytes.subarray(i, i + MAX_PAYLOAD))) && ok;
    if (!ok) {
      input.pause();
      socket.once('drain', () => input.resume());
    }
  });
  input.once('end', () => socket.write(packet(ID_CLOSE_STDIN)));
  input.once('error', (err) => fail(new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] reading the data for stdin failed: ${err.message}`, { source: SOURCE, cause: err })));
}

export async function execOnDevice(device: DeviceRef, req: ExecRequest): Promise<ExecResult> {
  const command = buildCommand(req);
  if (Buffer.byteLength(command) > MAX_COMMAND_BYTES) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] the command line is ${Buffer.byteLength(command)} bytes after quoting, over adb's ${MAX_COMMAND_BYTES}-byte limit for a shell service: pass large data on stdin or in a file`, { source: SOURCE });
  }
  if (req.signal?.aborted) return empty();

  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  req.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(), req.timeoutMs);
  let socket: Awaited<ReturnType<DeviceRef['open']>>;
  try {
    socket = await device.open(`shell,v2,raw:${command}`, stop.signal);
  } catch (err) {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
    if (stop.signal.aborted) return empty();
    throw err;
  }

  const stdout = new CappedOutput(req.maxOutputBytes);
  const stderr = new CappedOutput(req.maxOutputBytes);
  const decoder = new PacketDecoder();
  // The first stdout line is the pid the command line printed (see command.ts).
  let pidText = '';
  let pid: number | undefined;
  let exitCode: number | undefined;

  let pidArrived: (pid: number | undefined) => void = () => {};
  const pidKnown = new Promise<number | undefined>((resolve) => {
    pidArrived = resolve;
    setTimeout(() => resolve(undefined), KILL_WAIT_MS).unref();
  });
  const onStdout = (data: Buffer): void => {
    if (pid !== undefined) return stdout.push(data);
    const nl = data.indexOf(0x0a);
    if (nl < 0) {
      pidText += data.toString('latin1');
      return;
    }
    pidText += data.subarray(0, nl).toString('latin1');
    pid = Number.parseInt(pidText, 10);
    pidArrived(Number.isNaN(pid) ? undefined : pid);
    stdout.push(data.subarray(nl + 1));
  };

  try {
    return await new Promise<ExecResult>((resolve, reject) => {
      let settled = false;
      const finish = (result: ExecResult | Error): void => {
        if (settled) return;
        settled = true;
        socket.destroy();
        // A stdin stream the program did not read to the end is not read any further.
        if (req.stdin !== undefined && typeof req.stdin !== 'string' && !Buffer.isBuffer(req.stdin)) req.stdin.destroy();
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      socket.on('data', (chunk: Buffer) => {
        for (const p of decoder.push(chunk)) {
          if (p.id === ID_STDOUT) onStdout(p.payload);
          else if (p.id === ID_STDERR) stderr.push(p.payload);
          else if (p.id === ID_EXIT) exitCode = p.payload[0] ?? 0;
        }
        if (exitCode !== undefined && !stop.signal.aborted) {
          finish({ exit_code: exitCode, stdout: stdout.toBuffer(), stderr: stderr.toBuffer(), timed_out: false, truncated: stdout.truncated || stderr.truncated });
        }
      });
      socket.once('close', () => {
        pidArrived(undefined);
        if (stop.signal.aborted) return; // the abort path settles
        if (exitCode === undefined) finish(deviceLost(device.serial, `while running ${JSON.stringify(req.argv[0])}`));
      });
      socket.on('error', () => {}); // 'close' follows and decides
      const onStop = (): void => {
        if (settled) return;
        const done = (): void => finish({ exit_code: null, stdout: stdout.toBuffer(), stderr: stderr.toBuffer(), timed_out: true, truncated: stdout.truncated || stderr.truncated });
        // A command aborted right after it started may not have printed its pid yet: wait for it
        // (briefly), since closing the stream alone signals only the shell, not its children.
        void pidKnown.then((known) => (known === undefined ? undefined : killOnDevice(device, known))).then(done);
      };
      // The abort may have come while the service was being opened: act on it now, not never.
      if (stop.signal.aborted) onStop();
      else stop.signal.addEventListener('abort', onStop, { once: true });

      socket.resume();
      const input = req.stdin;
      if (input === undefined || typeof input === 'string' || Buffer.isBuffer(input)) {
        const bytes = input === undefined ? Buffer.alloc(0) : Buffer.isBuffer(input) ? input : Buffer.from(input, 'utf8');
        for (const p of stdinPackets(bytes)) socket.write(p);
        return;
      }
      streamStdin(input, socket, (err) => finish(err));
      if (stop.signal.aborted) input.destroy();
      else stop.signal.addEventListener('abort', () => input.destroy(), { once: true });
    });
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
  }
}
