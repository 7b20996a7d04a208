/**
 * The published conformance kit on this adapter:
 * - on a REAL headless sway on this host (host channel), as sway;
 * - on the same sway with the Hyprland IPC stand-in beside it, playing 0.41.2 (hyprlang) and
 *   0.55.4 (Lua), as Hyprland;
 * - through provider-docker on the `wayland-sway` and `hyprland-standin` goldens (providerTarget):
 *   a real container, its docker-exec channel. Without the golden image that target's setup fails
 *   and the kit reports every check as skipped with the provider's reason (build it with
 *   `vmhub-server golden build wayland-sway` / `hyprland-standin`).
 * A foot terminal running `cat` (no echo, non-canonical) into a file is the focused window, so
 * what is typed or pasted lands in that file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type GuestChannel } from '@vmhub/core';
import { providerTarget, runAdapterConformance, type AdapterTarget } from '@vmhub/conformance';
import dockerProvider, { DOCKER_TEMPLATES } from '@vmhub/provider-docker';
import { createHostChannel } from '@vmhub/test-kit/host-channel';
import { until } from '@vmhub/test-kit';
import hyprland from '../src/index.ts';
import { leaseContext } from './context.ts';
import { STANDIN } from './desktop.ts';
import { NOBODY, startSway } from './sway-session.ts';

const SINK = 'stty -icanon -echo; exec cat > "$1"';

/**
 * What the sink file holds once it has not changed for 150 ms (bounded): the last keys of a
 * vm_type still travel compositor → foot → pty → cat when the call returns.
 */
async function quiet(read: () => Promise<string | undefined>): Promise<string> {
  let last = (await read()) ?? '';
  for (let i = 0; i < 20; i++) {
    await sleep(150);
    const now = (await read()) ?? '';
    if (now === last) return now;
    last = now;
  }
  return last;
}

async function hostTarget(hyprlandVersion?: string): Promise<AdapterTarget> {
  const sway = await startSway();
  try {
    if (hyprlandVersion) {
      sway.spawn(['/usr/bin/python3', STANDIN, '--version', hyprlandVersion, '--signature', 'conformance']);
      await until(() => existsSync(join(sway.runtimeDir, 'hypr', 'conformance', '.socket.sock')), 'stand-in', 30_000);
    }
    const typed = join(sway.home, 'typed.txt');
    sway.spawn(['foot', '-T', 'conformance-sink', 'sh', '-c', SINK, 'sink', typed]);
    await until(() => existsSync(typed), 'sink terminal', 60_000);
    const channel = createHostChannel({ home: sway.home, env: { HOME: sway.home, PATH: '/usr/local/bin:/usr/bin:/bin' }, uid: NOBODY });
    const asUser = (argv: string[]) => execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...argv], { env: { ...process.env, ...sway.env }, timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
    return {
      // The suite creates the adapter before the target exists: the session's whereabouts reach
      // it through the template's adapter_options, applied when it opens the lease's session.
      context: leaseContext(channel, { xdg_runtime_dir: sway.runtimeDir, compositor: hyprlandVersion ? 'hyprland' : 'sway' }),
      dispose: () => sway.stop(),
      diagnose: async () => [
        `host: ${availableParallelism()} cpus, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
        `the session user's processes:\n${spawnSync('ps', ['-o', 'pid,stat,etime,args', '-u', String(NOBODY)], { encoding: 'utf8', timeout: 5000 }).stdout.trim()}`,
        `sway windows:\n${swayWindows((() => { try { return sway.swaymsg('-r', '-t', 'get_tree'); } catch (err) { return `(failed: ${(err as Error).message})`; } })())}`,
      ].join('\n'),
      effects: {
        typedText: () => quiet(async () => readFileSync(typed, 'utf8')),
        clipboard: async () => { try { return asUser(['wl-paste', '-n']); } catch { return ''; } },
      },
    };
  } catch (err) {
    await sway.stop();
    throw err;
  }
}

/**
 * dockerTarget, tried twice: the first container on a freshly started engine has failed to come
 * up on CI machines (not reproduced here); the first failure is printed in full, so a real fault
 * still shows, and a second one fails the suite with its message.
 */
async function dockerTargetWithRetry(templateId: string): Promise<AdapterTarget> {
  try {
    return await dockerTarget(templateId);
  } catch (err) {
    process.stderr.write(`[adapter-hyprland test] docker target ${templateId}: first setup failed, trying once more: ${(err as Error).stack ?? String(err)}\n`);
    return dockerTarget(templateId);
  }
}

/** A golden's container through provider-docker, with a sink terminal started in it. */
async function dockerTarget(templateId: string): Promise<AdapterTarget> {
  const template = DOCKER_TEMPLATES.find((t) => t.id === templateId);
  if (!template) throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [adapter-hyprland test] provider-docker offers no template ${templateId} (its golden folder has no template.json yet)`);
  const target = await providerTarget({ plugin: dockerProvider, template, instance: `hyprc${Math.random().toString(16).slice(2, 8)}` });
  try {
    const channel: GuestChannel = await target.context.channel();
    const typed = `${channel.home ?? '/home/user'}/typed.txt`;
    // The image's env carries XDG_RUNTIME_DIR and WAYLAND_DISPLAY for docker exec.
    await channel.exec(['sh', '-c', `setsid foot -T conformance-sink sh -c '${SINK}' sink "$0" </dev/null >/dev/null 2>&1 &`, typed], { timeoutMs: 10_000 });
    const read = async () => { try { return (await channel.getFile(typed, { maxBytes: 1_000_000 })).toString('utf8'); } catch { return undefined; } };
    await until(async () => ((await read()) !== undefined ? true : undefined), 'sink terminal in the container', 60_000, 200);
    await sleep(300);
    return {
      ...target,
      diagnose: () => diagnoseContainer(channel, target.context.machine.external_id),
      effects: {
        typedText: () => quiet(read),
        clipboard: async () => { const r = await channel.exec(['timeout', '3', 'wl-paste', '-n'], { timeoutMs: 5000 }); return r.exit_code === 0 ? r.stdout.toString('utf8') : ''; },
      },
    };
  } catch (err) {
    if (err instanceof Error) err.message += `\n  the container's diagnosis:\n${(await diagnoseContainer(await target.context.channel(), target.context.machine.external_id).catch((e: Error) => e.message)).replace(/^/gm, '    ')}`;
    await target.dispose();
    throw err;
  }
}

/** The tree's windows in one line (app_id, pid, name, visible) from `swaymsg -r -t get_tree`'s output; what came instead when it is not a tree. */
function swayWindows(tree: string): string {
  const fields = tree.match(/"(app_id|pid|name|visible)": [^,\n]+/g);
  return (fields ? fields.join(' ') : tree).slice(0, 600);
}

/**
 * What a failed check in a container adds to its message: the guest's processes, sway's windows
 * and the container's log (sway's stderr, and that of every app it starts, foot's included).
 */
async function diagnoseContainer(channel: GuestChannel, containerId: string): Promise<string> {
  const run = async (argv: string[]) => {
    try {
      const r = await channel.exec(argv, { timeoutMs: 5000 });
      return `${r.stdout.toString('utf8')}${r.stderr.toString('utf8')}`.trim() || `(exit ${r.exit_code}, no output)`;
    } catch (err) {
      return `(failed: ${(err as Error).message})`;
    }
  };
  const tree = await run(['swaymsg', '-r', '-t', 'get_tree']);
  const logs = spawnSync('docker', ['logs', '--tail', '30', containerId], { encoding: 'utf8', timeout: 10_000 });
  return [
    `host: ${availableParallelism()} cpus, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    `guest processes:\n${await run(['ps', '-eo', 'pid,user,stat,etime,args'])}`,
    `sway windows:\n${swayWindows(tree)}`,
    `container log (last 30 lines):\n${`${logs.stdout ?? ''}${logs.stderr ?? ''}`.trim() || `(docker logs: ${logs.error?.message ?? `exit ${logs.status}`})`}`,
  ].join('\n');
}

const common = {
  plugin: hyprland,
  launchApp: 'foot',
  dispatch: [{ verb: 'compositor_info', args: {} }, { verb: 'list_outputs', args: {} }, { verb: 'get_clipboard', args: {} }],
  skip: { inspect: 'no AT-SPI stack on these desktops (foot has no accessibility tree): inspect answers CAPABILITY_UNAVAILABLE, checked in sway.test.ts' },
  timeoutMs: 60_000,
  setupTimeoutMs: 180_000,
};

// VMHUB_HYPRLAND_HOST=0 / VMHUB_HYPRLAND_DOCKER=0 leave out the host or the docker targets.
if (process.env.VMHUB_HYPRLAND_HOST !== '0') {
  runAdapterConformance({ ...common, name: 'host sway', target: () => hostTarget() });
  runAdapterConformance({ ...common, name: 'host sway + stand-in 0.41.2', target: () => hostTarget('0.41.2') });
  runAdapterConformance({ ...common, name: 'host sway + stand-in 0.55.4', target: () => hostTarget('0.55.4') });
}
if (process.env.VMHUB_HYPRLAND_DOCKER !== '0') {
  runAdapterConformance({ ...common, name: 'docker wayland-sway', target: () => dockerTargetWithRetry('wayland-sway'), setupTimeoutMs: 300_000 });
  runAdapterConformance({ ...common, name: 'docker hyprland-standin', target: () => dockerTargetWithRetry('hyprland-standin'), setupTimeoutMs: 300_000 });
}
