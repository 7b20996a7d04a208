/**
 * Launch (contract §4): a package alone starts its launcher activity through monkey
 * (`monkey -p <pkg> -c android.intent.category.LAUNCHER 1`, no activity name needed); a
 * component (`pkg/.Activity`), or a package with args, goes through `am start -W [args] …`
 * (args are am's intent options, e.g. `-a android.intent.action.VIEW -d <url>`). Then it waits
 * up to wait_seconds for a visible window of the package and reports it with the pid (`pidof`).
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import type { Device } from './guest.ts';
import { androidError, clip } from './errors.ts';
import { publicWindow, readWindows } from './android-list-windows.ts';
import type { AndroidRuntime } from './runtime.ts';

const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/;
const COMPONENT = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+\/[A-Za-z0-9_.$]+$/;

/** `am start` and its verdict: a line starting "Error" means it did not start. */
export async function startComponent(device: Device, target: string, args: string[], wait: boolean): Promise<void> {
  const argv = ['am', 'start', ...(wait ? ['-W'] : []), ...args, ...(target.includes('/') ? ['-n', target] : [target])];
  const res = await device.run(argv, { okCodes: [0, 1, 255], label: 'am start' });
  const said = `${res.stdout.toString('utf8')}\n${res.stderr.toString('utf8')}`;
  const error = said.split('\n').find((l) => /^Error( type \d+)?:?/.test(l.trim()) && !/^Error type \d+$/.test(l.trim()));
  if (error || res.exit_code !== 0) {
    const text = error?.trim() ?? clip(said.trim());
    const missing = /does not exist|Unable to resolve|not found|No Activity/i.test(text);
    throw androidError(missing ? 'NOT_FOUND' : 'INTERNAL', `am start ${target} failed: ${text}`, { details: { app: target } });
  }
}

export async function launch(rt: AndroidRuntime, ctx: AdapterContext, input: { app: string; args: string[]; wait_seconds: number }): Promise<{ pid?: number; window?: WindowInfo }> {
  const app = input.app.trim();
  if (!PACKAGE.test(app) && !COMPONENT.test(app)) {
    throw androidError('INVALID_REQUEST', `launch wants an Android package ("com.example.app") or component ("com.example.app/.MainActivity"), not ${JSON.stringify(input.app)}`);
  }
  const pkg = app.split('/')[0]!;
  const device = await rt.device(ctx);
  if (!app.includes('/') && input.args.length === 0) {
    const res = await device.run(['monkey', '-p', pkg, '-c', 'android.intent.category.LAUNCHER', '1'], { okCodes: [0, 1, 251, 252, 253, 254, 255], label: 'monkey' });
    const said = `${res.stdout.toString('utf8')}\n${res.stderr.toString('utf8')}`;
    if (/No activities found to run/.test(said)) throw androidError('NOT_FOUND', `no launchable activity in package ${pkg} (monkey: "No activities found to run"): is it installed? (pm list packages)`, { details: { app: pkg } });
    if (res.exit_code !== 0 || !/Events injected: 1/.test(said)) throw androidError('INTERNAL', `monkey could not launch ${pkg} (exit ${res.exit_code}): ${clip(said.trim())}`);
  } else {
    await startComponent(device, app, input.args, true);
  }
  const end = Date.now() + input.wait_seconds * 1000;
  let window: WindowInfo | undefined;
  for (;;) {
    const windows = (await readWindows(rt, ctx)).windows.filter((w) => w.package === pkg && w.visible);
    const w = windows.find((x) => x.focused) ?? windows[0];
    if (w) {
      window = publicWindow(w);
      break;
    }
    if (Date.now() >= end || ctx.signal.aborted) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const pidRes = await device.run(['pidof', pkg], { okCodes: [0, 1], label: 'pidof' }).catch(() => undefined);
  const pid = Number.parseInt(pidRes?.stdout.toString('utf8').trim().split(/\s+/)[0] ?? '', 10);
  return { ...(Number.isFinite(pid) ? { pid } : {}), ...(window ? { window } : {}) };
}
