/**
 * @vmhub/conformance — the published test kit for vmhub plugins. A provider or adapter package
 * runs the suites from one short node:test file:
 *
 *   runProviderConformance({ plugin, options, template })
 *   runAdapterConformance({ plugin, target: async () => ({ context, dispose }) })
 *
 * Declared capabilities get behaviour checks through the real tool router and an MCP client;
 * undeclared ones must answer CAPABILITY_UNAVAILABLE. Every failure says how to fix it.
 * Fake plugins for tests live at the subpath `@vmhub/conformance/fake`; the package-shape check
 * (`checkPackageShape`, also `vmhub-conformance shape <dir>`) at `@vmhub/conformance/package-shape`.
 */
export { runProviderConformance, type ProviderConformanceOptions } from './provider-suite.ts';
export { runAdapterConformance, type AdapterConformanceOptions } from './adapter-suite.ts';
export { providerTarget, type ProviderTargetOptions } from './provider-target.ts';
export { connectRouter, hostCloneOf, DEFAULT_ROUTER_SETTINGS, type ConnectRouterOptions, type ExecSeen, type RouterConnection } from './connect-router.ts';
export { makeTar, type TarEntry } from './tar.ts';
export { expectOk, expectError, imageOf, type ToolError } from './expect.ts';
export { SAMPLE_ARGS, toolFor } from './checks/gating.ts';
export type { ExecCommands } from './checks/env.ts';
export type { AdapterTarget, TargetEffects } from './types.ts';
export { checkPackageShape, formatShapeProblems, type PackageShapeOptions, type ShapeProblem, type ShapeRule } from './package-shape/index.ts';
