/**
 * The android-standin golden through @vmhub/provider-docker (a real container, its adbd reached
 * through the provider's guest ports and the host's adb server, the adb channel handed to the
 * adapter), with the stand-in app started and its text field focused. Effects are read from the
 * app's own state file (what really arrived in the Tk widgets) through the same channel.
 */
import { VmhubError, type GuestChannel, type TemplateConfig } from '@vmhub/core';
import { providerTarget, type AdapterTarget } from '@vmhub/conformance';
import type { ProviderPlugin } from '@vmhub/core';
import { until } from '@vmhub/test-kit';

export const APP = 'com.vmhub.standin';
const STATE = `/data/data/${APP}/files/state.json`;

/** provider-docker (a dev dependency) runs the android-standin golden. */
export async function dockerPlugin(): Promise<ProviderPlugin & { templates: readonly TemplateConfig[] }> {
  return (await import('@vmhub/provider-docker')).default;
}

export interface AppState { taps: number; button_text: string; button_color: string; text?: string; focus?: string | null; visible: boolean }

export async function appState(ch: GuestChannel): Promise<AppState | undefined> {
  try {
    return JSON.parse((await ch.getFile(STATE, { maxBytes: 1_000_000 })).toString('utf8')) as AppState;
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}

export async function standinTarget(): Promise<AdapterTarget & { channel: GuestChannel }> {
  const docker = await dockerPlugin();
  const template = docker.templates.find((t) => t.id === 'android-standin');
  if (!template) throw new Error('provider-docker offers no android-standin template: is standins/goldens/android-standin/template.json there (pnpm install links @vmhub/standin-goldens)?');
  const target = await providerTarget({ plugin: docker, template, timeoutMs: 240_000, instance: `andr${Math.random().toString(16).slice(2, 8)}` });
  try {
    const channel = await target.context.channel();
    const r = await channel.exec(['monkey', '-p', APP, '-c', 'android.intent.category.LAUNCHER', '1'], { timeoutMs: 30_000 });
    if (r.exit_code !== 0) throw new Error(`monkey could not start ${APP}: ${r.stderr.toString()}`);
    await until(async () => {
      const s = await appState(channel);
      return s?.visible && s.focus === 'input' ? s : undefined;
    }, 'the stand-in app with its text field focused', 30_000);
    return { ...target, channel };
  } catch (err) {
    await target.dispose();
    throw err;
  }
}
