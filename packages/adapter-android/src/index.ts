/**
 * @vmhub/adapter-android — drives an Android device through the lease's GuestChannel only
 * (the adb channel from @vmhub/channel-adb in practice): screencap for pixels, `input` for
 * touches, keys and ASCII text, a clipboard helper's broadcast + KEYCODE_PASTE for the rest,
 * dumpsys / am / monkey for windows and apps, uiautomator for the UI tree.
 *
 *   import android from '@vmhub/adapter-android';   // the plugin (defineAdapter, contract 2)
 *   const adapter = createAndroidAdapter({ long_press_ms: 800 });
 *   const session = await adapter.open(lease);
 */
import type { Adapter } from '@vmhub/core';
import { androidAdapter } from './adapter.ts';
import type { AndroidOptionsInput } from './options.ts';

export { ADAPTER_VERSION, ANDROID_CAPABILITIES } from './adapter.ts';
export type { AndroidSession } from './runtime.ts';
export { AndroidOptionsSchema, resolveOptions, type AndroidOptions, type AndroidOptionsInput } from './options.ts';
export { parseKeys, resolveKey, KEY_NAMES } from './keys.ts';
export { planText, inputTextArgs, type TextStep } from './text-plan.ts';
export { parseWindowDump, type ParsedWindow, type WindowDump } from './dumpsys-window.ts';
export { parseUiDump, extractXml, decodeXml } from './uiautomator.ts';
export { parseWmSize, parseRotation, currentSize } from './screen-parse.ts';
export { pngSize } from './png.ts';
export { scrollSwipe } from './android-scroll.ts';

/** Make an adapter instance. Does no I/O: `open(lease)` makes a lease's session. */
export function createAndroidAdapter(options: AndroidOptionsInput = {}): Adapter {
  return androidAdapter.create(options);
}

export default androidAdapter;
