/**
 * vmhub-adapter-example — a copy-me desktop adapter. It drives an X11 desktop (Xvfb + a window
 * manager, as in the debian-x11 golden) reached only through the lease's GuestChannel: screenshots
 * with xwd, input with xdotool, exec and files through the channel. It works on any provider that
 * gives a channel into such a machine (Docker, SSH, a QEMU guest agent).
 *
 * The default export is what vmhub loads (a package named vmhub-adapter-* is discovered by name).
 */
import { exampleAdapter } from './adapter.ts';
import type { ExampleOptions } from './options.ts';

export { exampleAdapter } from './adapter.ts';
export { ExampleOptionsSchema, type ExampleOptions } from './options.ts';

/** A ready instance with these options (validated, defaults filled); does no I/O. */
export function createExampleAdapter(options: Partial<ExampleOptions> = {}) {
  return exampleAdapter.create(options);
}

export default exampleAdapter;
