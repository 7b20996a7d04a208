/**
 * The adapter: what it is, which capabilities it serves, its options, the per-lease runtime, and
 * one plain function per capability. The adapter kit builds the session core opens per lease —
 * input actions one at a time, every call's signal aborted when the lease ends, a template's
 * adapter_options merged over the instance's — and core's defineAdapter underneath refuses a
 * contract it does not speak, checks the functions match the declared capabilities, validates
 * options, and wraps every call so a throw becomes a VmhubError tagged "adapter-example".
 */
import { readPackageVersion } from '@vmhub/core';
import { defineAdapter } from '@vmhub/core/adapter-kit';
import { exampleClick } from './example-click.ts';
import { exampleExec } from './example-exec.ts';
import { exampleGetFile } from './example-get-file.ts';
import { exampleKey } from './example-key.ts';
import { examplePutFile } from './example-put-file.ts';
import { exampleScreenSize } from './example-screen-size.ts';
import { exampleScreenshot } from './example-screenshot.ts';
import { exampleType } from './example-type.ts';
import { ExampleOptionsSchema, type ExampleOptions } from './options.ts';
import { createRuntime, type ExampleRuntime } from './runtime.ts';

export const exampleAdapter = defineAdapter<ExampleOptions, ExampleOptions, ExampleRuntime>({
  /** Templates name the adapter by this id (`"adapter": "example"`). Rename it with the package. */
  id: 'example',
  // From package.json, so vm_health shows what is installed, not what someone typed here.
  version: readPackageVersion(import.meta.url),
  // The contract this file was written against, as a literal: core refuses any other.
  contractVersion: 2,
  options: ExampleOptionsSchema,
  // Once per lease, no I/O: the channel opens on the first call that needs it.
  runtime: createRuntime,
  // One function per capability. What the adapter declares is what these serve: screenshot,
  // click, type, key, exec, put_file, get_file (screenSize helps core check points; optional).
  methods: {
    screenshot: exampleScreenshot,
    screenSize: exampleScreenSize,
    click: exampleClick,
    type: exampleType,
    key: exampleKey,
    exec: exampleExec,
    // What vm_exec {shell: "…"} runs: the argv of this machine's shell. Optional — leaving it out
    // gives exactly this (/bin/sh -c); a guest without /bin/sh says where its shell is (Windows:
    // PowerShell, Android: /system/bin/sh). Synchronous, no I/O.
    shellArgv: (command) => ['/bin/sh', '-c', command],
    putFile: examplePutFile,
    getFile: exampleGetFile,
  },
  // No dispose: the kit aborts the session's calls at the lease's end and core closes the channel.
  // Add one when the runtime starts something of its own (a helper process, a connection).
});
