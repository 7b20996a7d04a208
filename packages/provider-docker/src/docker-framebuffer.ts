/**
 * The framebuffer a screenshot can read without entering the guest. Each container gets its own
 * directory on a host tmpfs (`<framebuffer_dir>/<identity>`), bind-mounted at FB_MOUNT with
 * VMHUB_FBDIR naming it; a golden whose session honours VMHUB_FBDIR (lib/session.sh) starts
 * Xvfb with `-fbdir $VMHUB_FBDIR/screen`, so Xvfb keeps its screen in
 * `<dir>/screen/Xvfb_screen0`, an XWD file mmap'd by the X server. framebuffer() hands that
 * path to adapters once the file exists; destroy removes the directory.
 *
 * Only for an engine on this host (a unix socket): a remote engine would mount a directory of ITS
 * host. A socket forwarded from another host looks local; then the file never appears here,
 * framebuffer() stays undefined and adapters capture through the guest (turn it off with
 * `framebuffer: false` to keep the remote host's tmpfs clean).
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FramebufferSource, MachineRef } from '@vmhub/core';
import { parseDockerHost } from './docker-host.ts';
import type { DockerProviderOptions } from './options.ts';

/** Where the machine's directory appears in the container. */
export const FB_MOUNT = '/run/vmhub-fb';
/**
 * The machine directory's `x11/` is the container's /tmp/.X11-unix: the X server's socket appears
 * on the host, where adapters send input through it in process (FramebufferSource x11_socket).
 */
export const X11_DIR = 'x11';
export const X11_MOUNT = '/tmp/.X11-unix';
/**
 * The machine directory's `screen/`: where the guest's display keeps its frame. Made here
 * world-writable (sticky), so a guest process of any user can put it there — Xvfb -fbdir (the
 * X session chowns it to its user), or a Wayland adapter's capture helper (adapter-hyprland's
 * capture.ts, which writes the same XWD file and listens on a socket beside it).
 */
const SCREEN_DIR = 'screen';
/** The file Xvfb -fbdir keeps screen 0 in. */
const SCREEN_FILE = join(SCREEN_DIR, 'Xvfb_screen0');
const SAFE_IDENTITY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$/;
/**
 * Least free space on the framebuffer's filesystem for a new machine to get one: Xvfb maps its
 * file and writes into it, and a full tmpfs would kill the X server with SIGBUS, not fail softly.
 * 256 MiB is a 8192×8192 screen with room to spare.
 */
export const MIN_FREE_BYTES = 256 * 1024 * 1024;

/** The host directory all machines' framebuffers go under, or undefined when off / not local. */
export function framebufferRoot(options: Pick<DockerProviderOptions, 'framebuffer' | 'framebuffer_dir' | 'docker_host'>): string | undefined {
  if (!options.framebuffer) return undefined;
  if (parseDockerHost(options.docker_host).socketPath === undefined) return undefined;
  if (options.framebuffer_dir) return options.framebuffer_dir;
  // Per host user: a second server under another uid must not share (or be locked out of) one root.
  try {
    if (!statSync('/dev/shm').isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return `/dev/shm/vmhub-fb-${process.getuid?.() ?? 0}`;
}

function machineDir(root: string, identity: string): string | undefined {
  return SAFE_IDENTITY.test(identity) ? join(root, identity) : undefined;
}

/**
 * Make the machine's directory before its container is created: the root private to this host
 * user (0700), the machine's readable (the guest's session makes `screen/` inside it for its X
 * user). Undefined when it cannot be made, or the filesystem has less than MIN_FREE_BYTES free:
 * the container then runs without it.
 */
export function prepareFramebuffer(root: string, identity: string, log: (msg: string) => void, minFree = MIN_FREE_BYTES): string | undefined {
  const dir = machineDir(root, identity);
  if (!dir) return undefined;
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const fs = statfsSync(root);
    const free = fs.bavail * fs.bsize;
    if (free < minFree) {
      log(`[vmhub] [provider-docker] no framebuffer for ${identity}: ${root} has ${Math.floor(free / 2 ** 20)} MiB free, less than ${Math.ceil(minFree / 2 ** 20)} MiB: screenshots go through the guest`);
      return undefined;
    }
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    // Explicitly: the server runs under umask 077 (its own files are private), and the guest's X
    // user must be able to enter this folder to make `screen/` (a 0700 folder fails `display`).
    chmodSync(dir, 0o755);
    // As /tmp/.X11-unix always is: any user may make its display's socket, none remove another's.
    for (const sub of [X11_DIR, SCREEN_DIR]) {
      mkdirSync(join(dir, sub), { recursive: true, mode: 0o1777 });
      chmodSync(join(dir, sub), 0o1777);
    }
    return dir;
  } catch (err) {
    log(`[vmhub] [provider-docker] no framebuffer directory for ${identity} under ${root} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): screenshots go through the guest`);
    return undefined;
  }
}

/** The machine's framebuffer file, once the guest's X server has made it. */
export function framebufferOf(root: string | undefined, machine: MachineRef): FramebufferSource | undefined {
  const dir = root === undefined ? undefined : machineDir(root, machine.identity);
  if (!dir) return undefined;
  const path = join(dir, SCREEN_FILE);
  try {
    // lstat: the guest writes screen/ and X11_DIR; a link it put there to a host file is none.
    const st = lstatSync(path);
    if (!st.isFile() || st.size <= 100) return undefined;
    const socket = x11SocketIn(join(dir, X11_DIR));
    return socket ? { format: 'xwd', path, x11_socket: socket } : { format: 'xwd', path };
  } catch {
    return undefined;
  }
}

/** The host directory that is the machine's /tmp/.X11-unix, when the machine has one. */
export function x11DirOf(root: string | undefined, identity: string): string | undefined {
  const dir = root === undefined ? undefined : machineDir(root, identity);
  if (!dir) return undefined;
  try {
    return statSync(join(dir, X11_DIR)).isDirectory() ? join(dir, X11_DIR) : undefined;
  } catch {
    return undefined;
  }
}

/** The X server's socket in the shared /tmp/.X11-unix (X<n>, the lowest display), if it is there. */
function x11SocketIn(dir: string): string | undefined {
  try {
    const name = readdirSync(dir).filter((f) => /^X\d+$/.test(f)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))[0];
    return name && lstatSync(join(dir, name)).isSocket() ? join(dir, name) : undefined;
  } catch {
    return undefined;
  }
}

/** Remove the machine's directory (after its container is gone). */
export function removeFramebuffer(root: string | undefined, identity: string): void {
  const dir = root === undefined ? undefined : machineDir(root, identity);
  if (dir) rmSync(dir, { recursive: true, force: true });
}
