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
 * - A cancelled call (ctx.signal) kills that command wherever it is; a short cleanup command then
 *   puts the saved content back. So the script keeps its work in a directory named by the host
 *   ($4, random hex) and saves the previous content (and which selection) there before it takes
 *   the selection.
 * Limits: the previous content is restored as text (UTF8_STRING); an image on the clipboard is not
 * preserved. An empty clipboard is restored as an empty string. The restore is synchronous: when
 * the call returns, the previous content is back (see selection-sh.ts).
 */
import { randomBytes } from 'node:crypto';
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { cancelled, isCancellation, killed, throwIfCancelled, x11Error } from './errors.ts';
import type { Guest } from './guest.ts';
import type { X11Runtime } from './runtime.ts';
import { OWN_FN } from './selection-sh.ts';

export const PASTE_SCRIPT = OWN_FN + String.raw`
tmp=$TMPDIR; [ -n "$tmp" ] || tmp=/tmp; tmp="$tmp/vmhub-paste-$4"
set -uf
mkdir -m 700 "$tmp" || exit 70
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/new"
cls=''
win=$(xdotool getactivewindow 2>/dev/null) && cls=$(xprop -id "$win" -notype WM_CLASS 2>/dev/null)
sel=clipboard; keys=ctrl+v
for c in $2; do case "$cls" in *"\"$c\""*) sel=primary; keys=shift+Insert;; esac; done
for c in $3; do case "$cls" in *"\"$c\""*) sel=clipboard; keys=ctrl+shift+v;; esac; done
printf '%s' "$sel" > "$tmp/sel"
had=0
if timeout 2 xclip -selection "$sel" -o > "$tmp/old.part" 2>/dev/null; then had=1; else : > "$tmp/old.part"; fi
mv "$tmp/old.part" "$tmp/old"
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

/**
 * After a cancelled paste: put back the content PASTE_SCRIPT saved and remove its directory.
 * Prints "restored" when it owned the selection again, "untouched" when the paste was stopped
 * before it saved the old content (so before it took the selection).
 */
export const RESTORE_SCRIPT = OWN_FN + String.raw`
d=$TMPDIR; [ -n "$d" ] || d=/tmp; d="$d/vmhub-paste-$1"
[ -d "$d" ] || { echo untouched; exit 0; }
rc=0
if [ -f "$d/old" ] && [ -f "$d/sel" ]; then
  rm -f "$d/old.log"
  if own "$(cat "$d/sel")" "$d/old"; then echo restored; else rc=71; fi
else
  echo untouched
fi
rm -rf "$d"
exit "$rc"
`;

export async function paste(rt: X11Runtime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const guest = await rt.guest(ctx);
  const o = rt.options;
  const work = randomBytes(8).toString('hex');
  // Checked here, synchronously before the script starts: a cancellation caught below then always
  // means the script was running, and only then is there something to restore.
  throwIfCancelled(ctx.signal, 'vm_paste');
  let res: ExecResult;
  try {
    res = await guest.sh(PASTE_SCRIPT, [String(o.paste_timeout_ms), o.primary_paste_classes.join(' '), o.terminal_classes.join(' '), work], {
      needs: ['xdotool', 'xclip', 'xprop', 'timeout', 'grep'],
      stdin: input.text,
      timeoutMs: o.paste_timeout_ms + 10_000,
      label: 'vm_paste',
    });
  } catch (err) {
    if (!isCancellation(err)) throw err;
    const outcome = await restoreAfterCancel(guest, work);
    throw killed(cancelled('vm_paste', 'stopped', outcome === 'restored' ? 'the previous selection content was put back'
      : outcome === 'untouched' ? 'the selection was not changed' : 'the selection may still hold the pasted text'));
  }
  const [selection, keys, served] = res.stdout.toString('utf8').trim().split(' ');
  if (served !== '1') {
    throw x11Error('TIMEOUT', `pressed ${keys} but no application fetched the ${selection} selection within ${o.paste_timeout_ms} ms: focus a window that accepts text (vm_focus), then paste again; the previous clipboard was restored`, {
      details: { selection, keys },
    });
  }
}

/** Cleanup of a cancelled paste: runs although the call's signal aborted (bounded, best effort). */
async function restoreAfterCancel(guest: Guest, work: string): Promise<'restored' | 'untouched' | 'failed'> {
  try {
    const res = await guest.sh(RESTORE_SCRIPT, [work], { needs: ['xclip', 'grep'], cleanup: true, timeoutMs: 6000 });
    const said = res.stdout.toString('utf8').trim();
    return said === 'restored' || said === 'untouched' ? said : 'failed';
  } catch {
    return 'failed';
  }
}
