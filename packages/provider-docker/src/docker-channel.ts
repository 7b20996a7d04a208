/**
 * GuestChannel into a container: exec through the persistent helper (falling back to one Engine
 * API exec per call when the helper cannot start); files and archives through exec AS THE GUEST
 * USER (docker-files.ts), so the guest's kernel checks that user's rights and resolves symlinks
 * for it. Every channel() call opens a new one (its own helper connection); core opens one per
 * lease session and closes it when the session ends, so nothing here is pooled per machine.
 * Errors leave in guest terms (docker-errors.ts): no host path, no engine id.
 */
import type { Readable } from 'node:stream';
import { openAdbChannelOver } from '@vmhub/channel-adb';
import { resolveGuestPath, VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type MachineRef, type ProviderContext, type PutFileOptions, type TemplateConfig } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { connectPort } from './docker-connect.ts';
import { leaseContainer } from './docker-create.ts';
import { channelError, type Machine } from './docker-errors.ts';
import { rawExec } from './docker-exec.ts';
import { getFileAsUser, putArchiveAsUser, putFileAsUser, type FileTool } from './docker-files.ts';
import { containerState } from './docker-state.ts';
import { ExecHelper } from './exec-helper.ts';
import { dockerTemplateOptions, type DockerProviderOptions } from './options.ts';

const SOURCE = 'provider-docker';

export interface ChannelSettings {
  desktopUser: string;
  maxFileBytes: number;
  maxArchiveBytes: number;
  useHelper: boolean;
  /** The machine's identity: what messages name instead of the container id. Default: the short id. */
  identity?: string;
  /** Tests only: force the file tool (default: perl when the image has it, else sh + coreutils). */
  fileTool?: FileTool;
  log: (level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

interface UserInfo {
  uid: number;
  gid: number;
  home: string;
}

export class DockerChannel implements GuestChannel {
  readonly #docker: DockerClient;
  readonly #containerId: string;
  readonly #settings: ChannelSettings;
  readonly #users = new Map<string, Promise<UserInfo>>();
  #helper: ExecHelper | undefined;
  #closed = false;
  #helperTried = 0;
  #restarting: Promise<ExecHelper | undefined> | undefined;
  #fileTool: Promise<FileTool> | undefined;
  readonly #machine: Machine;
  home: string | undefined;

  private constructor(docker: DockerClient, containerId: string, settings: ChannelSettings) {
    this.#docker = docker;
    this.#containerId = containerId;
    this.#settings = settings;
    this.#machine = { containerId, identity: settings.identity ?? containerId.slice(0, 12) };
  }

  static async open(docker: DockerClient, containerId: string, settings: ChannelSettings): Promise<DockerChannel> {
    const channel = new DockerChannel(docker, containerId, settings);
    if (settings.useHelper) {
      try {
        channel.#helperTried = Date.now();
        channel.#helper = await ExecHelper.start(docker, containerId);
      } catch (err) {
        settings.log('warn', `[vmhub] [${SOURCE}] exec helper did not start in ${containerId.slice(0, 12)}; falling back to one docker exec per call (slower): ${(err as Error).message}`);
      }
    }
    try {
      channel.home = (await channel.#user(settings.desktopUser)).home;
    } catch (err) {
      await channel.close();
      throw err;
    }
    return channel;
  }

  /** How execs travel: `helper` (persistent) or `engine` (one docker exec each). */
  get mode(): 'helper' | 'engine' {
    return this.#helper?.alive ? 'helper' : 'engine';
  }

  /** The helper, restarted (at most every 5 s) if it died, e.g. killed inside the guest. */
  async #liveHelper(): Promise<ExecHelper | undefined> {
    if (this.#helper?.alive || !this.#settings.useHelper) return this.#helper?.alive ? this.#helper : undefined;
    if (this.#restarting) return this.#restarting;
    if (Date.now() - this.#helperTried < 5000) return undefined;
    this.#helperTried = Date.now();
    this.#restarting ??= ExecHelper.start(this.#docker, this.#containerId)
      .then((h) => {
        if (this.#closed) { h.close(); return undefined; }
        this.#helper = h;
        return h;
      })
      .catch((err: Error) => { this.#settings.log('warn', `[vmhub] [${SOURCE}] exec helper restart failed: ${err.message}`); return undefined; })
      .finally(() => { this.#restarting = undefined; });
    return this.#restarting;
  }

  #check(): void {
    if (this.#closed) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] channel to ${this.#machine.identity} is closed`, { source: SOURCE });
  }

  /** Run `work`; whatever it throws leaves typed and in guest terms. */
  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw channelError(err, this.#machine, this.#settings.log);
    }
  }

  exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    return this.#guard(() => this.#exec(argv, options));
  }

  async #exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.#check();
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== 'string' || a.includes('\0'))) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] exec needs a non-empty argv of strings without NUL bytes`, { source: SOURCE });
    }
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (k === '' || k.includes('=') || k.includes('\0') || String(v).includes('\0')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] exec env name "${k}" must be non-empty, without "=" or NUL bytes`, { source: SOURCE });
    }
    const stdin = options.stdin === undefined ? undefined : Buffer.isBuffer(options.stdin) ? options.stdin : Buffer.from(options.stdin, 'utf8');
    const req = {
      argv,
      user: options.user ?? this.#settings.desktopUser,
      cwd: options.cwd,
      env: options.env,
      stdin,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
      signal: options.signal,
    };
    const helper = await this.#liveHelper();
    // Cancelled before it started: the command never runs.
    if (options.signal?.aborted) return { exit_code: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: true, truncated: false };
    if (helper) return helper.exec(req);
    // The helper starts in the user's home; a docker exec starts in the image's WORKDIR.
    const home = req.user === this.#settings.desktopUser ? this.home : req.user === 'root' ? '/root' : undefined;
    return rawExec(this.#docker, this.#containerId, { ...req, cwd: req.cwd ?? home });
  }

  #user(name: string): Promise<UserInfo> {
    let info = this.#users.get(name);
    if (!info) {
      info = (async () => {
        const r = await this.#exec(['getent', 'passwd', name], { user: 'root', timeoutMs: 10_000 });
        const fields = r.stdout.toString('utf8').trim().split(':');
        if (r.exit_code !== 0 || fields.length < 7) {
          throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] no user "${name}" in the guest: use an existing user (the desktop user is "${this.#settings.desktopUser}")`, { source: SOURCE });
        }
        return { uid: Number(fields[2]), gid: Number(fields[3]), home: fields[5]! };
      })();
      this.#users.set(name, info);
      info.catch(() => this.#users.delete(name));
    }
    return info;
  }

  /** perl when the image has it (the helper is perl), else sh + coreutils; asked once per channel. */
  #tool(): Promise<FileTool> {
    if (this.#settings.fileTool) return Promise.resolve(this.#settings.fileTool);
    this.#fileTool ??= (this.#helper?.alive ? Promise.resolve('perl' as const) : this.#exec(['perl', '-e', 'exit 0'], { user: 'root', cwd: '/', timeoutMs: 10_000 }).then((r) => (r.exit_code === 0 ? 'perl' : 'sh') as FileTool));
    this.#fileTool.catch(() => { this.#fileTool = undefined; });
    return this.#fileTool;
  }

  #path(path: string): string {
    return resolveGuestPath(path, this.home ?? '/');
  }

  putFile(path: string, data: Buffer, options: PutFileOptions = {}): Promise<void> {
    return this.#guard(async () => {
      this.#check();
      const abs = this.#path(path);
      const cap = this.#settings.maxFileBytes;
      if (data.length > cap) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] file for ${abs} is ${data.length} bytes, over the cap of ${cap} bytes: raise the docker provider option max_file_bytes`, { source: SOURCE, details: { path: abs, size: data.length, cap } });
      const user = options.user ?? this.#settings.desktopUser;
      await this.#user(user);
      await putFileAsUser((argv, o) => this.#exec(argv, o), { user, tool: await this.#tool() }, abs, data, options.mode);
    });
  }

  getFile(path: string, options: GetFileOptions = {}): Promise<Buffer> {
    return this.#guard(async () => {
      this.#check();
      const user = this.#settings.desktopUser;
      return getFileAsUser((argv, o) => this.#exec(argv, o), { user, tool: await this.#tool() }, this.#path(path), options.maxBytes ?? this.#settings.maxFileBytes);
    });
  }

  putArchive(dir: string, tar: Readable, options: { user?: string } = {}): Promise<void> {
    return this.#guard(async () => {
      this.#check();
      const abs = dir === '/' ? '/' : this.#path(dir);
      const user = options.user ?? this.#settings.desktopUser;
      await this.#user(user);
      // A plain docker exec, not the helper: its connection gives the stream backpressure.
      await putArchiveAsUser((argv, o) => rawExec(this.#docker, this.#containerId, { argv, user, cwd: o.cwd, stdin: o.stdin, timeoutMs: o.timeoutMs ?? 600_000, maxOutputBytes: o.maxOutputBytes ?? 65_536 }), user, abs, tar, this.#settings.maxArchiveBytes);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#helper?.close();
  }
}

/** channel(): a new channel into the running container that carries the machine's identity. */
export async function openDockerChannel(docker: DockerClient, machine: MachineRef, template: TemplateConfig, options: DockerProviderOptions, log: ProviderContext['log']): Promise<GuestChannel> {
  const c = await leaseContainer(docker, machine);
  // Stopped or paused behind vmhub's back: not "not ready yet" (retryable forever), but lost.
  const how = containerState(c);
  if (how !== 'running') throw new VmhubError('MACHINE_LOST', `[vmhub] [${SOURCE}] the container of ${machine.identity} is ${c.State.Paused ? 'paused' : c.State.Status}: it was stopped outside vmhub`, { source: SOURCE });
  const opts = dockerTemplateOptions(template);
  if (opts.guest_channel?.kind === 'adb') return openAdbGuestChannel(docker, machine, opts.guest_channel.port, options);
  return DockerChannel.open(docker, c.Id, {
    identity: machine.identity,
    desktopUser: dockerTemplateOptions(template).user ?? options.desktop_user,
    maxFileBytes: options.max_file_bytes,
    maxArchiveBytes: options.max_archive_bytes,
    useHelper: options.exec_helper,
    log,
  });
}

/**
 * The adb channel to the container's adbd (Android stand-in): the adb server on this host dials a
 * loopback forward whose connections tunnel to the container's port like every guest port.
 */
async function openAdbGuestChannel(docker: DockerClient, machine: MachineRef, port: number, options: DockerProviderOptions): Promise<GuestChannel> {
  return openAdbChannelOver((p, signal) => connectPort(docker, machine, p, options.desktop_user, signal), port, { maxFileBytes: options.max_file_bytes });
}
