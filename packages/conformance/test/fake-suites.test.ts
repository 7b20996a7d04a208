// Both suites on the fake plugins: the kit's reference run. The stub adapter exercises the
// all-unavailable path.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { runAdapterConformance, runProviderConformance } from '../src/index.ts';
import { fakeAdapter, fakeProvider, fakeTarget, fakeTemplate, stubAdapter } from '../src/fake/index.ts';

const dir = await mkdtemp(join(tmpdir(), 'vmhub-conf-suite-'));
after(() => rm(dir, { recursive: true, force: true }));

runProviderConformance({ plugin: fakeProvider, options: { dir }, template: fakeTemplate({ provider_options: { ready_delay_ms: 20 } }), timeoutMs: 10_000 });

runAdapterConformance({
  plugin: fakeAdapter,
  target: () => fakeTarget(),
  launchApp: 'xterm',
  dispatch: [{ verb: 'echo', args: { value: 'hi' } }, { verb: 'desktop_state', args: {} }],
});

runAdapterConformance({ plugin: stubAdapter, target: () => fakeTarget() });
