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
 * preserved. An empty clipboard is restored as an empty string.
 */
import type { AdapterContext } from '@vmhub/core';
import { x11Error } from './errors.ts';
import type { X11Runtime } from './runtime.ts';

export const PASTE_SCRIPT = String.raw`
set -u
tmp=$(mktemp -d) || exit 70
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/new"
cls=''
win=$(xdotool getactivewindow 2>/dev/null) && cls=$(xprop -id "$win" -notype WM_CLASS 2>/dev/null)
sel=clipboard; keys=ctrl+v
for c in $2; do case "$cls" in *"\"$c\""*) sel=primary; keys=shift+Insert;; esac; done
for c in $3; do case "$cls" in *"\"$c\""*) sel=clipboard; keys=ctrl+shift+v;; esac; done
had=0
if timeout 2 xclip -selection "$sel" -o > "$tmp/old" 2>/dev/null; then had=1; fi
xclip -selection "$sel" -i -verbose -loops 1 < "$tmp/new" > "$tmp/log" 2>&1 &
xc=$!
i=0
until grep -q 'Waiting for a selection request' "$tmp/log" 2>/dev/null; do
  if ! kill -0 "$xc" 2>/dev/null; then cat "$tmp/log" >&2; exit 71; fi
  i=$((i+1)); if [ "$i" -gt 300 ]; then kill "$xc"; echo 'xclip did not take the selection within 3 s' >&2; exit 71; fi
  sleep 0.01
done
xdotool key --clearmodifiers "$keys" || exit 72
i=0; limit=$(( $1 / 20 ))
while kill -0 "$xc" 2>/dev/null && [ "$i" -lt "$limit" ]; do i=$((i+1)); sleep 0.02; done
served=1
if kill -0 "$xc" 2>/dev/null; then served=0; kill "$xc" 2>/dev/null; fi
wait "$xc" 2>/dev/null
if [ "$had" = 1 ]; then xclip -selection "$sel" -i < "$tmp/old" >/dev/null 2>&1
else printf '' | xclip -selection "$sel" -i >/dev/null 2>&1; fi
printf '%s %s %s\n' "$sel" "$keys" "$served"
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
