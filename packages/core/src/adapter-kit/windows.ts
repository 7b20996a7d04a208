/**
 * The window an agent names in vm_focus / vm_close (and verbs that take a window): by id, else by
 * exact title when exactly one window has it. The same rule and the same errors in every adapter
 * whose windows have ids and titles; how an id matches (case, 0x… or decimal) is the adapter's.
 */
import type { AdapterErrors } from './errors.ts';

/**
 * One window of `windows` by id (`sameId(window, ref)`) or exact title; INVALID_REQUEST listing
 * the ids when several windows have the title, NOT_FOUND when none matches.
 */
export function pickWindow<W extends { id: string; title: string }>(windows: readonly W[], ref: string, errors: AdapterErrors, sameId: (w: W, ref: string) => boolean): W {
  const byId = windows.find((w) => sameId(w, ref));
  if (byId) return byId;
  const byTitle = windows.filter((w) => w.title === ref);
  if (byTitle.length === 1) return byTitle[0]!;
  if (byTitle.length > 1) {
    throw errors.error('INVALID_REQUEST', `window title "${ref}" is ambiguous: ${byTitle.length} windows have it (${byTitle.map((w) => w.id).join(', ')}); pass one of these ids`, {
      details: { ids: byTitle.map((w) => w.id) },
    });
  }
  throw errors.error('NOT_FOUND', `no window with id or exact title "${ref}"; vm_list_windows shows the open windows`, {
    hint: 'Call vm_list_windows and pass a window id from it.',
  });
}
