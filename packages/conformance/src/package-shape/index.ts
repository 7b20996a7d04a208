/**
 * @vmhub/conformance/package-shape — the package-shape check a plugin author runs on their own
 * package (also `vmhub-conformance shape <dir>`): one file name per role, contract-only imports,
 * no other plugin, no dynamic import, the versions right. No router, no sharp: it loads the
 * plugin and opens one session without I/O, and reads the sources as text.
 */
export { checkPackageShape, formatShapeProblems } from './check.ts';
export { rolesOf, COMMON_ROLES, PROVIDER_METHOD_ROLES, type Role } from './roles.ts';
export { isPluginPackage } from './sources.ts';
export { HEAVY_DEPENDENCIES } from './manifest.ts';
export type { PackageShapeOptions, ShapeProblem, ShapeRule } from './types.ts';
