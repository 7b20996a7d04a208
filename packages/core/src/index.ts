/**
 * @vmhub/core — the contract every vmhub part agrees on, and nothing else: capability ids, tool
 * schemas, errors, the Adapter / AdapterSession / Provider / GuestChannel interfaces,
 * defineAdapter / defineProvider, guest-path and coordinate rules. Its only runtime
 * dependencies are TypeBox and Ajv, so a plugin that peers on it installs no MCP SDK, no sharp
 * (libvips) and no zod. The rest lives under subpaths, whose needs are optional peers:
 *   @vmhub/core/router      the MCP tool router (needs @modelcontextprotocol/server, zod, sharp)
 *   @vmhub/core/screenshot  screenshot shaping (needs sharp)
 *   @vmhub/core/config      configuration and plugin discovery (Node only)
 */
export * from './errors.ts';
export * from './capabilities.ts';
export * from './shapes.ts';
export * from './template.ts';
export * from './tools.ts';
export * from './toolsets.ts';
export * from './validate.ts';
export type * from './channel.ts';
export type * from './provider.ts';
export type * from './adapter.ts';
export * from './define.ts';
export { OLDEST_CONTRACT, contractProblem, currentPlugin, inContractWindow, isShimmed } from './contract-window.ts';
export * from './screen-mapping.ts';
export * from './paths.ts';
export { errnoFromText, fsError, type FsErrorContext, type FsOp } from './guest-fs-errors.ts';
export { PUT_APPEND_SH, PUT_COMMIT_SH, PUT_CREATE_SH, PUT_FILE_SH, putTempPath } from './guest-put.ts';
export { readPackageVersion } from './package-version.ts';
export { CappedOutput } from './capped-output.ts';
export { GuestPorts, type GuestPortsOptions, type OpenGuestStream } from './guest-ports.ts';
/** TypeBox, re-exported so a plugin can declare its options and verb schemas without its own copy. */
export { Type, type TSchema, type Static } from '@sinclair/typebox';
export type { OcrEngine, OcrImage, OcrWord, TextBox, TextMatch, TextElement } from './ocr/types.ts';
export { generateLeaseKeyPair, type LeaseKeyPair } from './lease-keys.ts';
export { LeaseSecrets } from './lease-secrets.ts';
export { quoteArg, quoteArgv } from './shell-quote.ts';
export { readFirstEntry, TarOwnerRewriter, writeTar, type TarEntry, type TarHeader } from './ustar.ts';
