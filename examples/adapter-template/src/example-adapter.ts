/**
 * The adapter's declaration: what it is, which capabilities it serves, its options, and how it
 * opens a session per lease. defineAdapter does real work here: it refuses a contract it does not
 * speak, checks that the session implements exactly the declared capabilities, validates options,
 * and wraps every method so a throw becomes a VmhubError tagged "adapter-example".
 */
import { defineAdapter, readPackageVersion } from '@vmhub/core';
import { openExampleSession } from './example-session.ts';
import { ExampleOptionsSchema, type ExampleOptions } from './options.ts';

export const exampleAdapter = defineAdapter<ExampleOptions>({
  /** Templates name the adapter by this id (`"adapter": "example"`). Rename it with the package. */
  id: 'example',
  // From package.json, so vm_health shows what is installed, not what someone typed here.
  version: readPackageVersion(import.meta.url),
  // The contract this file was written against, as a literal: core refuses any other.
  contractVersion: 2,
  capabilities: ['screenshot', 'click', 'type', 'key', 'exec', 'put_file', 'get_file'],
  options: ExampleOptionsSchema,
  // create() runs once per adapter instance and does no I/O; open() runs once per lease.
  create(options) {
    return { open: (lease) => openExampleSession(options, lease) };
  },
});
