/**
 * runAdapterConformance(): drives an adapter through the real router and an MCP client, one
 * describe block per capability (`"<adapterId>: <capability>"`). Declared capabilities get
 * behaviour checks (effects verified where the target gives probes); undeclared ones must answer
 * CAPABILITY_UNAVAILABLE. Only what a target cannot support is skipped, with the reason.
 */
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CAPABILITIES, CONTRACT_VERSION, OLDEST_CONTRACT, currentPlugin, inContractWindow, isCapability, type Adapter, type AdapterPlugin, type Capability } from '@vmhub/core';
import { connectRouter, hostCloneOf, type RouterConnection } from './connect-router.ts';
import { callContext, checkSessionEnd } from './checks/session.ts';
import { check } from './expect.ts';
import { makeTar } from './tar.ts';
import type { AdapterTarget } from './types.ts';
import type { CheckTable, ExecCommands, SuiteEnv } from './checks/env.ts';
import { EXEC_CHECKS } from './checks/exec.ts';
import { FILE_CHECKS } from './checks/files.ts';
import { gatingCheck } from './checks/gating.ts';
import { INPUT_CHECKS } from './checks/input.ts';
import { SCREEN_CHECKS } from './checks/screen.ts';
import { WINDOW_CHECKS } from './checks/windows.ts';

export interface AdapterConformanceOptions<O = unknown> {
  /** The value your package's default export holds (defineAdapter(...)). */
  plugin: AdapterPlugin<O>;
  /** Options passed to plugin.create (validated by defineAdapter). */
  options?: Partial<O>;
  /**
   * Names the target when one file runs the kit on several (e.g. "docker wayland-sway"): it goes
   * into every suite title and every failure's message, since a test reporter's summary of
   * failures shows only the check's own name.
   */
  name?: string;
  /** Make a running target and the AdapterContext to drive it; called once, disposed after. */
  target: () => Promise<AdapterTarget>;
  /** An app the target can launch that opens a window (e.g. "xterm"): enables launch/focus/close checks. */
  launchApp?: string;
  /** Commands for the exec checks, for targets without a POSIX userland. */
  exec?: ExecCommands;
  /** Verb calls that must succeed: [{verb, args}]. */
  dispatch?: { verb: string; args: Record<string, unknown> }[];
  /** Declared capabilities this target cannot exercise, with the reason (shown as a skip). */
  skip?: Partial<Record<Capability, string>>;
  /** Bound for each check. Default 60 000 ms. */
  timeoutMs?: number;
  /** Bound for target() (boot included). Default 600 000 ms. */
  setupTimeoutMs?: number;
}

/** Order: screenshot first (it learns the screen), launch before focus/close. */
const ORDER: Capability[] = ['screenshot', 'inspect', 'list_windows', 'launch', 'focus', 'close', 'click', 'type', 'key', 'paste', 'drag', 'scroll', 'dispatch', 'put_file', 'get_file', 'clone_repo', 'exec'];
const CHECKS: CheckTable = { ...SCREEN_CHECKS, ...WINDOW_CHECKS, ...INPUT_CHECKS, ...FILE_CHECKS, ...EXEC_CHECKS };

const DIAGNOSIS_MAX = 4000;

/**
 * Runs a check; when it fails, the failure names the target (when named) and, when the target can
 * diagnose, carries what it sees.
 */
async function withDiagnosis(target: AdapterTarget, name: string | undefined, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if ((!target.diagnose && !name) || !(err instanceof Error)) throw err;
    let added = name ? `\n  target: ${name}` : '';
    if (target.diagnose) {
      let seen: string;
      try {
        seen = await target.diagnose();
      } catch (e) {
        seen = `diagnose() failed: ${(e as Error).message}`;
      }
      if (seen.length > DIAGNOSIS_MAX) seen = `${seen.slice(0, DIAGNOSIS_MAX)}\n[… ${seen.length - DIAGNOSIS_MAX} more characters]`;
      added += `\n  the target's diagnosis:\n${seen.replace(/^/gm, '    ')}`;
    }
    const before = err.message;
    err.message = `${before}${added}`;
    // Reporters print the stack, which holds the message as it was when the error was made.
    if (err.stack?.includes(before)) err.stack = err.stack.replace(before, err.message);
    throw err;
  }
}

export function runAdapterConformance<O>(spec: AdapterConformanceOptions<O>): void {
  // A plugin of the previous contract runs the same suite through core's shim (contract-window.ts),
  // as the server would serve it; one outside the window fails the shape test below.
  const plugin = spec.plugin && spec.plugin.kind === 'adapter' && inContractWindow(spec.plugin.contractVersion) ? currentPlugin(spec.plugin) as AdapterPlugin<O> : spec.plugin;
  const id = `${plugin?.id ?? 'adapter'}${spec.name ? ` (${spec.name})` : ''}`;
  const timeout = spec.timeoutMs ?? 60_000;
  const declared = new Set<Capability>(plugin?.capabilities ?? []);
  let env: SuiteEnv | undefined;
  let setupError: unknown;
  let adapter: Adapter | undefined;
  let target: AdapterTarget | undefined;
  let conn: RouterConnection | undefined;

  describe(`${id}: adapter`, () => {
    before(async () => {
      try {
        adapter = plugin.create(spec.options);
        target = await spec.target();
        conn = await connectRouter({
          adapter, context: target.context,
          cloneOnHost: async () => hostCloneOf(makeTar([
            { path: 'README.md', data: 'vmhub conformance clone\n' },
            { path: '.git', type: 'dir' },
            { path: '.git/HEAD', data: 'ref: refs/heads/main\n' },
          ]), 2),
        });
        env = {
          plugin, adapter, target, conn, session: conn.session,
          launchApp: spec.launchApp,
          exec: {
            echo: spec.exec?.echo ?? ['echo', 'vmhub-conformance'],
            fail: spec.exec?.fail ?? ['sh', '-c', 'echo vmhub-conformance-err >&2; exit 3'],
            sleep: spec.exec?.sleep === undefined ? ['sleep', '5'] : spec.exec.sleep,
            cat: spec.exec?.cat ?? ['cat'],
            pwd: spec.exec?.pwd ?? ['pwd'],
            cwd: spec.exec?.cwd ?? '/tmp',
          },
          dispatch: spec.dispatch ?? [],
          scratch: `vmhub-conformance-${randomBytes(4).toString('hex')}`,
          declared: (c) => declared.has(c),
        };
        // The screenshot check refines this; screenSize() covers adapters without screenshots.
        if (conn.session.screenSize) env.screen = await conn.session.screenSize(callContext(conn.lease)).catch(() => undefined);
      } catch (err) {
        setupError = err;
      }
    }, { timeout: spec.setupTimeoutMs ?? 600_000 });

    after(async () => {
      await conn?.close().catch(() => undefined);
      await target?.dispose();
    });

    it(`${id}: plugin shape and contract version`, () => {
      check(plugin && plugin.kind === 'adapter', 'default export is not an adapter plugin', 'export default defineAdapter({...}) from @vmhub/core');
      check(inContractWindow(plugin.contractVersion), `adapter speaks contract ${plugin.contractVersion}, this @vmhub/core serves contracts ${OLDEST_CONTRACT}–${CONTRACT_VERSION}`, `port the adapter to contract ${CONTRACT_VERSION} (node_modules/@vmhub/server/docs/conformance.md) and write contractVersion: ${CONTRACT_VERSION} as a literal`);
      check(typeof plugin.version === 'string' && /^\d+\.\d+\.\d+/.test(plugin.version), `version "${plugin.version}" is not a package version`, 'set version: readPackageVersion(import.meta.url) (from @vmhub/core), not a hand-written string');
      for (const c of plugin.capabilities) check(isCapability(c), `unknown capability "${c}"`, `declare only: ${CAPABILITIES.join(', ')}`);
      check(!setupError, `setting up the target failed: ${(setupError as Error)?.message}`, 'read the error: plugin.create(options) and adapter.open(lease) must not throw (a declared capability without its method is refused at open), and target() must return {context, dispose} (is its backend, e.g. Docker, running?)');
    });

    it(`${id}: probe() maps only declared capabilities to reasons`, async (t) => {
      if (!env) { t.skip(`target setup failed: ${(setupError as Error)?.message ?? 'unknown'}`); return; }
      if (!env.session.probe) { t.skip('the adapter has no probe() (optional)'); return; }
      const found = await env.session.probe(callContext(env.conn.lease));
      check(found && typeof found === 'object', `probe() returned ${JSON.stringify(found)}`, 'return an object {capability: reason} ({} when everything declared works)');
      for (const [cap, reason] of Object.entries(found)) {
        check(declared.has(cap as Capability), `probe() reports "${cap}", which the adapter does not declare`, 'report only declared capabilities that this machine cannot serve now');
        check(typeof reason === 'string' && reason.length > 0, `probe() gives no reason for "${cap}"`, 'say what is missing and how to get it');
      }
      if (Object.keys(found).length) t.diagnostic(`unavailable on this target: ${JSON.stringify(found)}`);
    });

    it(`${id}: a session ends cleanly: dispose() settles, stops what it started, and the session refuses later calls`, { timeout }, async (t) => {
      if (!env) { t.skip(`target setup failed: ${(setupError as Error)?.message ?? 'unknown'}`); return; }
      await checkSessionEnd(env, declared, timeout);
    });

    for (const cap of ORDER) {
      const checks = declared.has(cap) ? CHECKS[cap] ?? [] : [gatingCheck(cap)];
      describe(`${id}: ${cap}`, () => {
        for (const c of checks) {
          it(c.name, { timeout }, async (t) => {
            if (!env) { t.skip(`target setup failed: ${(setupError as Error)?.message ?? 'unknown'}`); return; }
            const reason = declared.has(cap) ? spec.skip?.[cap] : undefined;
            if (reason) { t.skip(reason); return; }
            await withDiagnosis(env.target, spec.name, () => c.run(env!, t));
          });
        }
      });
    }
  });
}
