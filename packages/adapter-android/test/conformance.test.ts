/**
 * The published conformance kit on this adapter, on the android-standin golden through
 * @vmhub/provider-docker (standin.ts): a real container running the real adbd, reached through
 * the provider's guest ports by the host's adb server, the adapter driving it over
 * @vmhub/channel-adb. What is typed or pasted is read from the stand-in app's text field.
 * Needs the golden (`vmhub-server golden build android-standin`): without it the setup FAILS
 * with the provider's reason.
 *
 * launchApp is Clipper (ca.zgrs.clipper, launchable in the stand-in): the kit force-stops what it
 * launched, and the app whose field receives the text must stay.
 */
import { runAdapterConformance } from '@vmhub/conformance';
import android from '../src/index.ts';
import { appState, standinTarget } from './standin.ts';

runAdapterConformance({
  plugin: android,
  launchApp: 'ca.zgrs.clipper',
  timeoutMs: 90_000,
  setupTimeoutMs: 300_000,
  async target() {
    const t = await standinTarget();
    return {
      context: t.context,
      dispose: () => t.dispose(),
      // No clipboard probe: vm_paste on Android leaves the pasted text on the clipboard (no
      // background app may read the clipboard since Android 10, so the old one cannot be kept).
      effects: { typedText: async () => (await appState(t.channel))?.text ?? '' },
    };
  },
});
