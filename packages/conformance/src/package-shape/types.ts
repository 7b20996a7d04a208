/** The package-shape check's vocabulary: what it reports and how it is asked. */
import type { VmhubPlugin } from '@vmhub/core';

/** Which rule a problem breaks (docs/conformance.md, "The package shape"). */
export type ShapeRule =
  | 'load'              // the plugin could not be imported, created or opened without I/O
  | 'role-file'         // a role's file is missing (one file name per role)
  | 'capability-file'   // a declared capability has no <id>-<capability>.ts
  | 'prefix'            // an adapter helper carries the <id>- prefix, which marks capabilities only
  | 'version'           // plugin.version is not package.json's, or a version is typed by hand
  | 'contract-literal'  // contractVersion is not written as a literal
  | 'peer-core'         // @vmhub/core is not a peer dependency
  | 'heavy-dependency'  // the MCP SDK, sharp or zod among the dependencies
  | 'server-import'     // a server part of @vmhub/core (router, screenshot, config) imported
  | 'platform-import'   // @vmhub/store, server, reaper or conformance imported
  | 'plugin-import'     // another plugin imported (or depended on)
  | 'dynamic-import';   // an import(…) expression

export interface ShapeProblem {
  readonly rule: ShapeRule;
  /** The file to change, relative to the package folder (`src/x11-probe.ts`, `package.json`), with `:line` when a line is to blame. */
  readonly file: string;
  /** What is wrong. */
  readonly message: string;
  /** The change that makes it pass. */
  readonly fix: string;
}

export interface PackageShapeOptions {
  /**
   * The plugin (or the plugins) the package exports. Default: the default export of the
   * package's entry (`entry`), imported.
   */
  plugin?: VmhubPlugin | readonly VmhubPlugin[];
  /** The entry to import, relative to the package folder. Default: package.json's `exports["."]`, else `main`. */
  entry?: string;
  /** Passed to `plugin.create()` (default none): the check creates the plugin and opens one session without I/O. */
  options?: Record<string, unknown>;
  /** Dependencies the heavy-dependency rule lets through, e.g. `['@modelcontextprotocol/client']` for an adapter whose guest speaks MCP. */
  allowDependencies?: readonly string[];
}
