/** The adapter's error helpers (the kit's, named for this adapter): every message names the component and says what to do. */
import { adapterErrors } from '@vmhub/core/adapter-kit';

export { isCancellation, killed, wasKilled } from '@vmhub/core/adapter-kit';

export const SOURCE = 'adapter-x11';
// The page installed with @vmhub/server (the adapter's README links it too).
export const DOCS = 'node_modules/@vmhub/server/docs/adapters/x11.md';

export const errors = adapterErrors(SOURCE, DOCS);
export const { error: x11Error, cancelled, throwIfCancelled, missingTool } = errors;
