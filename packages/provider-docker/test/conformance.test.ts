/**
 * docker: the published conformance kit on this provider, against the real engine and the real
 * debian-x11 golden image (built first when its tag is missing).
 */
import { runProviderConformance } from '@vmhub/conformance';
import dockerProvider from '../src/index.ts';
import { ensureGolden, template } from './fixture.ts';

await ensureGolden();

runProviderConformance({
  plugin: dockerProvider,
  options: {},
  template,
  timeoutMs: 120_000,
});
