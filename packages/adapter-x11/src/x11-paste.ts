/**
 * Paste: put the text on the selection the focused app pastes from, press its paste chord, wait
 * until the app has actually fetched the text, then restore what the selection held before.
 *
 * - Most apps paste CLIPBOARD with ctrl+v; VTE/Qt terminals use ctrl+shift+v; XTerm's default
 *   translations bind no ctrl+shift+v at all, and shift+Insert pastes PRIMARY — so the focused
 *   window's WM_CLASS picks selection and chord (classes are options).
 * - `xclip -loops 1` serves exactly one transfer (TARGETS queries do not count) and exits, which
 *   tells us the paste happened; restoring earlier would race the app and paste the old text.
 * - Everything runs in ONE guest command: a fixed script, the text on stdin, classes as $2/$3.
 * Limits: the previous content is restored as text (UTF8_STRING); an image on the clipboard is not
 * preserved. An empty clipboard is restored as an empty string. The restore is synchronous: when
 * the call returns, the previous content is back (see selection-sh.ts).
 */
import type { AdapterContext } from '@vmhub/core';
import { x11Error } from './errors.ts';
import type { X11Runtime } from './runtime.ts';
import { OWN_FN } from './selection-sh.ts';

export const PASTE_SCRIPT = OWN_FN + String.raw`
set -uf
tmp=$(mktemp -d) || exit 70
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/new"
cls=''
win=$(xdotool getactivewindow 2>/dev/null) && cls=$(xprop -id "$win" -notype WM_CLASS 2>/dev/null)
sel=clipboard; keys=ctrl+v
for c in $2; do case "$cls" in *"\"$c\""*) sel=primary; keys=shift+Insert;; esac; done
for c in $3; do case "$cls" in *"\"$c\""*) sel=clipboard; keys=ctrl+shift+v;; esac; done
had=0
if timeout 2 xclip -selection "$sel" -o > "$tmp/old" 2>/dev/null; then had=1; else : > "$tmp/old"; fi
own "$sel" "$tmp/new" 1 || exit 71
xc=$own_pid
xdotool key --clearmodifiers "$keys" || exit 72
i=0; limit=$(( $1 / 20 ))
while kill -0 "$xc" 2>/dev/null && [ "$i" -lt "$limit" ]; do i=$((i+1)); sleep 0.02; done
served=1
if kill -0 "$xc" 2>/dev/null; then served=0; kill "$xc" 2>/dev/null; fi
wait "$xc" 2>/dev/null
own "$sel" "$tmp/old" || exit 71
printf '%s %s %s %s\n' "$sel" "$keys" "$served" "$had"
`;

export async function paste(rt: X11Runtime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const guest = await rt.guest(ctx);
  const o = rt.options;
  const res = await guest.sh(PASTE_SCRIPT, [String(o.paste_timeout_ms), o.primary_paste_classes.join(' '), o.terminal_classes.join(' ')], {
    needs: ['xdotool', 'xclip', 'xprop', 'mktemp', 'timeout', 'grep'],
    stdin: input.text,
    timeoutMs: o.paste_timeout_ms + 10_000,
  });
  const [selection, keys, served] = res.stdout.toString('utf8').trim().split(' ');
  if (served !== '1') {
    throw x11Error('TIMEOUT', `pressed ${keys} but no application fetched the ${selection} selection within ${o.paste_timeout_ms} ms: focus a window that accepts text (vm_focus), then paste again; the previous clipboard was restored`, {
      details: { selection, keys },
    });
  }
}
