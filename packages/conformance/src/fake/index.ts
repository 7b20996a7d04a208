/**
 * @vmhub/conformance/fake — fake plugins for tests: a provider whose machines are directories
 * shared between processes (with a ledger of every create/destroy), a fake desktop adapter that
 * declares every capability and reaches its state only through the GuestChannel, and a stub
 * adapter that declares none. The default export is the plugin list, so a server loads them by
 * package name (`plugins: ["@vmhub/conformance/fake"]`).
 */
import { fakeAdapter } from './fake-adapter.ts';
import { fakeProvider } from './fake-provider.ts';
import { stubAdapter } from './stub-adapter.ts';

export { fakeProvider, createFakeProvider } from './fake-provider.ts';
export { fakeAdapter, createFakeAdapter, fakeSessions, RESTORED_MARK } from './fake-adapter.ts';
export { stubAdapter, createStubAdapter } from './stub-adapter.ts';
export { fakeTemplate, stubTemplate } from './fake-templates.ts';
export { fakeTarget, type FakeTargetOptions } from './fake-target.ts';
export { FakeAdapterOptionsSchema, FakeProviderOptionsSchema, type FakeAdapterOptions, type FakeProviderOptions } from './fake-options.ts';
export { readFakeLedger, defaultFakeDir, stopFakeMachine, type LedgerEntry, type MachineRecord } from './fake-store.ts';
export { FakeChannel, FAKE_MAX_FILE_BYTES, openFakeChannels } from './fake-channel.ts';
export { DESKTOP_FILE, PALETTE, BACKGROUND, TITLE_BAR, readDesktop, type DesktopState, type FakeWindow } from './fake-desktop.ts';

export default [fakeProvider, fakeAdapter, stubAdapter];
