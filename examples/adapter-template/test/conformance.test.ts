// The whole conformance run for this adapter: declared capabilities get behaviour checks,
// the other fourteen must answer CAPABILITY_UNAVAILABLE. Run: node --test test/conformance.test.ts
//
// fakeTarget() gives a machine from @vmhub/conformance's fake provider (a sandboxed channel).
// For an adapter that needs a real desktop, return your own { context, dispose, effects? }
// built on a real provider's machine and channel.
import { runAdapterConformance } from '@vmhub/conformance';
import { fakeTarget } from '@vmhub/conformance/fake';
import exampleAdapter from '../src/index.ts';

runAdapterConformance({
  plugin: exampleAdapter,
  options: { env: { EXAMPLE: '1' } },
  target: () => fakeTarget(),
});
