/**
 * The session lifecycle rule of contract 2: a session owns what it started and gives it all back
 * at dispose(), exactly once, without closing the lease's channel (core closes that), and a
 * disposed session refuses further calls. Checked on a second session of the same lease, so the
 * suite's own session keeps serving the capability checks.
 */
import { VmhubError, type AdapterContext, type Capability, type ExecOptions, type GuestChannel, type LeaseContext, type OpenSession } from '@vmhub/core';
import { check } from '../expect.ts';
import type { SuiteEnv } from './env.ts';

/** A per-call context for a lease, with a signal that never aborts unless the test ends. */
export function callContext(lease: LeaseContext, signal: AbortSignal = new AbortController().signal): AdapterContext {
  return { ...lease, signal };
}

const DISPOSE_MS = 10_000;
const SETTLE_MS = 3_000;

interface Started { argv: string[]; settled: boolean }
interface Watch { started: Started[]; closedChannel: boolean }

function watched(lease: LeaseContext, watch: Watch): LeaseContext {
  const { started } = watch;
  return {
    ...lease,
    async channel(): Promise<GuestChannel> {
      const channel = await lease.channel();
      return new Proxy(channel, {
        get(target, prop) {
          if (prop === 'close') {
            return async () => { watch.closedChannel = true; };
          }
          if (prop === 'exec') {
            return async (argv: string[], o?: ExecOptions) => {
              const seen: Started = { argv: [...argv], settled: false };
              started.push(seen);
              try { return await target.exec(argv, o); } finally { seen.settled = true; }
            };
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
}

/** Use the session the way a first call would, so it starts whatever it starts lazily. */
async function exercise(session: OpenSession, ctx: AdapterContext, declared: ReadonlySet<Capability>): Promise<void> {
  if (declared.has('screenshot')) await session.screenshot!(ctx);
  else if (declared.has('exec')) await session.exec!(ctx, { argv: ['true'], timeout_ms: 10_000, max_output_bytes: 1024 });
  else if (session.screenSize) await session.screenSize(ctx);
  await session.probe?.(ctx);
}

/** A declared method to call on the disposed session. */
function anyCall(session: OpenSession, ctx: AdapterContext, declared: ReadonlySet<Capability>): Promise<unknown> | undefined {
  if (declared.has('screenshot')) return session.screenshot!(ctx);
  if (declared.has('exec')) return session.exec!(ctx, { argv: ['true'], timeout_ms: 10_000, max_output_bytes: 1024 });
  if (declared.has('list_windows')) return session.listWindows!(ctx);
  if (declared.has('type')) return session.type!(ctx, { text: 'x' });
  return undefined;
}

export async function checkSessionEnd(env: SuiteEnv, declared: ReadonlySet<Capability>, timeoutMs: number): Promise<void> {
  const watch: Watch = { started: [], closedChannel: false };
  const { started } = watch;
  const lease = watched(env.conn.lease, watch);
  const session = await env.adapter.open(lease);
  const ctx = callContext(lease, AbortSignal.timeout(timeoutMs));
  try {
    await exercise(session, ctx, declared);
  } catch (err) {
    // The capability checks report failures of the calls themselves; this check is about ending.
    if (!VmhubError.is(err)) throw err;
  }

  const outcome = await Promise.race([
    session.dispose().then(() => 'settled' as const, (err: unknown) => err),
    new Promise<'hung'>((r) => setTimeout(r, DISPOSE_MS, 'hung').unref()),
  ]);
  check(outcome !== 'hung', `dispose() did not settle within ${DISPOSE_MS / 1000} s`, 'dispose() must end what the session started and return: abort its commands, clear its timers, never wait on the guest without a bound');
  check(outcome === 'settled', `dispose() rejected: ${(outcome as Error)?.message}`, 'dispose() must not throw; log and swallow what fails while cleaning up');
  check(session.disposed, 'the session does not report disposed after dispose()', 'make the adapter with defineAdapter from @vmhub/core: it tracks disposal');
  await session.dispose(); // a second dispose is a no-op

  const late = anyCall(session, ctx, declared);
  if (late) {
    const err = await late.then(() => undefined, (e: unknown) => e);
    check(VmhubError.is(err) && err.code === 'LEASE_EXPIRED', `a call on the disposed session answered ${err ? (err as Error).message : 'success'}`, 'make the adapter with defineAdapter from @vmhub/core: a disposed session answers LEASE_EXPIRED');
  }

  check(!watch.closedChannel, 'the session closed the lease\'s channel itself', 'do not close ctx.channel() in dispose(): core owns it and closes it when the lease ends (other sessions of the lease may still use it)');

  const deadline = Date.now() + SETTLE_MS;
  while (started.some((s) => !s.settled) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const running = started.filter((s) => !s.settled);
  check(running.length === 0, `the session left ${running.length} guest command(s) running ${SETTLE_MS / 1000} s after dispose(): ${running.map((s) => JSON.stringify(s.argv.slice(0, 4))).join(', ')}`, 'dispose() must stop every command the session started: pass an AbortSignal the session owns to GuestChannel.exec and abort it in dispose()');
}
