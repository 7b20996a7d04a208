/**
 * @vmhub/test-kit — the helpers vmhub's tests and benchmarks share: `until` (poll with a named
 * deadline), free loopback ports, temp dirs, a throwaway sshd, the real adbd and a private adb
 * server, the built server over HTTP, a round-robin TCP proxy in front of several servers. The
 * host GuestChannel is `@vmhub/test-kit/host-channel`, typed-error assertions
 * `@vmhub/test-kit/errors` (both load @vmhub/core).
 * Private: a devDependency only, never a dependency of published code.
 */
export { sleep, until, untilFileHas } from './until.ts';
export { accepts, freePort, waitPort } from './ports.ts';
export { tempDir, type TempDir } from './temp.ts';
export { startSshd, type TestSshd } from './sshd.ts';
export { ADB, ADBD, adbMissing, startAdbd, startAdbServer, type Adbd, type AdbdOptions, type AdbServer } from './adbd.ts';
export { startHttpServer, type HttpServer, type HttpServerOptions } from './http-server.ts';
export { startRoundRobinProxy, type TcpProxy } from './tcp-proxy.ts';
export { loadBuiltPlugin, type BuiltEntry, type ExpectedPlugin } from './built-entry.ts';
export { callContext, testLease, type TestLeaseParts } from './lease.ts';
export { abortExec } from './abort.ts';
