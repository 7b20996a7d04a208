/** The adapter's error helpers (the kit's, named for this adapter): every message names the component and says what to do. */
import { adapterErrors } from '@vmhub/core/adapter-kit';

export { isCancellation } from '@vmhub/core/adapter-kit';

export const SOURCE = 'adapter-hyprland';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/hyprland.md';

export const errors = adapterErrors(SOURCE, DOCS);
export const { error: hyprError, cancelled, throwIfCancelled, missingTool } = errors;
