/**
 * vmhub-adapter-example — a copy-me adapter. It serves exec, put_file and get_file through the
 * lease's GuestChannel, so it works on any provider that offers a channel (Docker, SSH, the QEMU
 * guest agent). Rename the id and package, add capabilities one file at a time
 * (`example-<capability>.ts`), declare each in `capabilities`, and keep
 * test/conformance.test.ts green: it runs @vmhub/conformance on this plugin.
 */
import { CONTRACT_VERSION, defineAdapter } from '@vmhub/core';
import { exampleExec } from './example-exec.ts';
import { exampleGetFile, examplePutFile } from './example-files.ts';
import { ExampleOptionsSchema, type ExampleOptions } from './example-options.ts';

export { ExampleOptionsSchema, type ExampleOptions } from './example-options.ts';

const exampleAdapter = defineAdapter<ExampleOptions>({
  id: 'example',
  version: '0.1.0',
  contractVersion: CONTRACT_VERSION,
  capabilities: ['exec', 'put_file', 'get_file'],
  options: ExampleOptionsSchema,
  create: (options) => ({
    exec: (ctx, input) => exampleExec(options, ctx, input),
    putFile: examplePutFile,
    getFile: exampleGetFile,
  }),
});

/** Named factory: validates options, does no I/O (the channel opens on first use, per lease). */
export function createExampleAdapter(options: Partial<ExampleOptions> = {}) {
  return exampleAdapter.create(options);
}

export default exampleAdapter;
