/**
 * @vmhub/conformance/fake-provider — only the fake provider, for processes that must not load
 * adapter code (the reaper). Same provider object as in `@vmhub/conformance/fake`.
 */
import { fakeProvider } from './fake-provider.ts';

export { fakeProvider, createFakeProvider } from './fake-provider.ts';
export { fakeTemplate, stubTemplate } from './fake-templates.ts';
export { FakeProviderOptionsSchema, type FakeProviderOptions } from './fake-options.ts';
export { readFakeLedger, defaultFakeDir, type LedgerEntry, type MachineRecord } from './fake-store.ts';
export { FakeChannel, FAKE_MAX_FILE_BYTES } from './fake-channel.ts';

export default fakeProvider;
