/**
 * @vmhub/core — the contract every vmhub part agrees on: capability ids, tool schemas, errors,
 * the Adapter / Provider / GuestChannel interfaces, defineAdapter / defineProvider, and the
 * screenshot contract. The MCP tool router lives at the subpath `@vmhub/core/router`.
 */
export * from './errors.ts';
export * from './capabilities.ts';
export * from './shapes.ts';
export * from './template.ts';
export * from './tools.ts';
export * from './validate.ts';
export type * from './channel.ts';
export type * from './provider.ts';
export type * from './adapter.ts';
export * from './define.ts';
export * from './screenshot.ts';
export * from './paths.ts';
export * from './config.ts';
export * from './plugins.ts';
/** TypeBox, re-exported so a plugin can declare its options and verb schemas without its own copy. */
export { Type, type TSchema, type Static } from '@sinclair/typebox';
