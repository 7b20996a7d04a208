/**
 * The clipboard route (contract §3): stock Android has no shell clipboard command, so a helper
 * app's broadcast receiver sets it — the Clipper protocol by default
 * (`am broadcast -a clipper.set -e text <text>`, answered `Broadcast completed: result=-1`) —
 * then KEYCODE_PASTE pastes it into the focused field. The text travels on stdin (so no
 * command-line limit or quoting applies to it) and becomes one argument on the device.
 */
import type { AdapterContext } from '@vmhub/core';
import { androidError, clip, DOCS } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

// The sentinel keeps trailing newlines, which $(…) would strip.
const CLIPBOARD_SCRIPT = String.raw`
t=$(cat; printf x); t=${'$'}{t%x}
if [ -n "$3" ]; then r=$(am broadcast -a "$1" -n "$3" -e "$2" "$t" 2>&1); else r=$(am broadcast -a "$1" -e "$2" "$t" 2>&1); fi
case "$r" in *"result=-1"*) ;; *) printf '%s\n' "$r" >&2; exit 86 ;; esac
if [ "$4" = paste ]; then exec input keyevent KEYCODE_PASTE; fi
`;

/** One argument on Linux is at most 128 KiB (MAX_ARG_STRLEN). */
export const MAX_CLIPBOARD_BYTES = 131072 - 1;

export async function setClipboard(rt: AndroidRuntime, ctx: AdapterContext, text: string, paste: boolean): Promise<void> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (text.includes('\0')) throw androidError('INVALID_REQUEST', 'the text contains a NUL character, which Android cannot take on its clipboard');
  if (bytes > MAX_CLIPBOARD_BYTES) {
    throw androidError('INVALID_REQUEST', `the text is ${bytes} bytes in UTF-8; Android's clipboard route passes it as one argument of at most ${MAX_CLIPBOARD_BYTES} bytes: send it in parts`, { details: { bytes, cap: MAX_CLIPBOARD_BYTES } });
  }
  const o = rt.options;
  const device = await rt.device(ctx);
  const res = await device.sh(CLIPBOARD_SCRIPT, [o.clipboard_action, o.clipboard_extra, o.clipboard_component ?? '', paste ? 'paste' : ''], { stdin: text, okCodes: [0, 86], label: 'am broadcast' });
  if (res.exit_code === 86) {
    const said = res.stderr.toString('utf8').trim();
    throw androidError('CAPABILITY_UNAVAILABLE', `no clipboard helper answered "am broadcast -a ${o.clipboard_action}" (${clip(said) || 'no answer'}): install Clipper (${o.clipboard_package}) on the device, or set the clipboard_* adapter options to your helper (${DOCS}); without it only printable ASCII can be typed`, {
      hint: 'Type printable ASCII only, or ask the operator to install the clipboard helper.',
      details: { action: o.clipboard_action },
    });
  }
}
