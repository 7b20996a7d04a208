/**
 * Paste: put the text on the Wayland clipboard, press the focused app's paste chord, wait until
 * the app has fetched it, then put back what the clipboard held before — one guest command.
 * - `wl-copy --foreground --paste-once` serves exactly one transfer and exits: that tells us the
 *   paste happened (restoring earlier would race the app and paste the old text). wl-copy
 *   otherwise forks a server that inherits stdout, so every wl-copy here has its stdio on
 *   /dev/null (adapters.md §3.2).
 * - Before the keys are pressed, the clipboard is cleared and polled with `wl-paste --list-types`
 *   (which lists the offer without a transfer, so paste-once is not spent) until our wl-copy
 *   owns it: pressing the chord earlier pastes the OLD content and the paste times out.
 * - Terminals (option terminal_classes, matched against the focused window's app_id/class) paste
 *   with ctrl+shift+v, everything else with ctrl+v.
 * - A cancelled call kills the command; the saved content stays in a directory named by the host
 *   and a short cleanup command restores it.
 * Limits: the previous content is restored as text; an image on the clipboard is not preserved.
 */
import { randomBytes } from 'node:crypto';
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { cancelled, hyprError, isCancellation, throwIfCancelled } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';
import { readWindows } from './hyprland-list-windows.ts';
import { reclaimKeyboard } from './vkeyboard.ts';

// $1 timeout ms, $2 "1" for the terminal chord, $3 work id, $4 settle ms.
export const PASTE_SCRIPT = String.raw`
tmp="$XDG_RUNTIME_DIR/vmhub-paste-$3"
mkdir -m 700 "$tmp" || exit 70
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/new"
had=0
if timeout 2 wl-paste -n > "$tmp/old.part" 2>/dev/null; then had=1; else : > "$tmp/old.part"; fi
mv "$tmp/old.part" "$tmp/old"; echo "$had" > "$tmp/had"
restore() { if [ "$had" = 1 ]; then wl-copy < "$tmp/old" >/dev/null 2>&1; else wl-copy --clear >/dev/null 2>&1; fi; }
wl-copy --clear >/dev/null 2>&1
wl-copy --foreground --paste-once < "$tmp/new" >/dev/null 2>&1 &
wc=$!
j=0
while ! wl-paste --list-types >/dev/null 2>&1; do
  j=$((j+1)); [ "$j" -gt 150 ] && { kill "$wc" 2>/dev/null; restore; exit 73; }
  sleep 0.02
done
if [ "$2" = 1 ]; then wtype -s "$4" -M ctrl -M shift -k v -m shift -m ctrl || { kill "$wc" 2>/dev/null; restore; exit 72; }
else wtype -s "$4" -M ctrl -k v -m ctrl || { kill "$wc" 2>/dev/null; restore; exit 72; }; fi
i=0; limit=$(( $1 / 20 ))
while kill -0 "$wc" 2>/dev/null && [ "$i" -lt "$limit" ]; do i=$((i+1)); sleep 0.02; done
served=1
if kill -0 "$wc" 2>/dev/null; then served=0; kill "$wc" 2>/dev/null; fi
wait "$wc" 2>/dev/null
restore
echo "$served"
`;

export const RESTORE_SCRIPT = String.raw`
d="$XDG_RUNTIME_DIR/vmhub-paste-$1"
[ -d "$d" ] || { echo untouched; exit 0; }
if [ -f "$d/old" ]; then
  if [ "$(cat "$d/had" 2>/dev/null)" = 1 ]; then wl-copy < "$d/old" >/dev/null 2>&1; else wl-copy --clear >/dev/null 2>&1; fi
  echo restored
else
  echo untouched
fi
rm -rf "$d"
`;

export async function paste(rt: HyprRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const o = rt.options;
  const focused = (await readWindows(rt, ctx)).find((w) => w.focused);
  const terminal = focused !== undefined && o.terminal_classes.includes(focused.class);
  const guest = await rt.guest(ctx);
  const work = randomBytes(8).toString('hex');
  throwIfCancelled(ctx.signal, 'vm_paste');
  let res: ExecResult;
  try {
    res = await guest.sh(PASTE_SCRIPT, [String(o.paste_timeout_ms), terminal ? '1' : '0', work, String(o.input_settle_ms)], {
      needs: ['wl-copy', 'wl-paste', 'wtype', 'timeout'],
      stdin: input.text,
      timeoutMs: o.paste_timeout_ms + 10_000,
      label: 'vm_paste',
      okCodes: [0, 73],
    });
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await guest.sh(RESTORE_SCRIPT, [work], { cleanup: true, timeoutMs: 6000 }).catch(() => undefined);
    throw cancelled('vm_paste');
  }
  await reclaimKeyboard(rt, ctx);
  if (res.exit_code === 73) {
    throw hyprError('INTERNAL', 'wl-copy did not take the clipboard within 3 s (the compositor offers no wlr-data-control, or is stalled); the previous clipboard was restored', {
      hint: 'Retry once; type the text with vm_type instead if it keeps failing.',
    });
  }
  if (res.stdout.toString('utf8').trim() !== '1') {
    const keys = terminal ? 'ctrl+shift+v' : 'ctrl+v';
    throw hyprError('TIMEOUT', `pressed ${keys} but no application fetched the clipboard within ${o.paste_timeout_ms} ms: focus a window that accepts text (vm_focus), then paste again; the previous clipboard was restored`, {
      details: { keys },
    });
  }
}
