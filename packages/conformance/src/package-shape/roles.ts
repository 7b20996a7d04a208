/**
 * One file name per role, the same in every plugin that has the role (src/, top level):
 *
 * - every plugin: `index.ts` (the public API, default export the plugin), `options.ts`;
 * - adapter: `adapter.ts` (defineAdapter), `runtime.ts` (the per-lease runtime),
 *   `<id>-<capability>.ts` per declared capability (`dispatch`: the verbs), `<id>-screen-size.ts`
 *   when the session has screenSize(), `probe.ts` when it has probe(); the `<id>-` prefix marks
 *   these and nothing else, so a helper never carries it;
 * - provider: `<id>-provider.ts` (the methods, wired), `<id>-create.ts`, `-destroy`, `-list`,
 *   `-ready`, `-status`, and `<id>-channel.ts`, `-connect`, `-console`, `-state`, `-secret`,
 *   `-framebuffer`, `-golden` when it has that method (goldens() defined, for `-golden`).
 *
 * Sources may be `.ts` or `.js` (`.mts`, `.mjs`): a role is met by `<name>.<any of these>`.
 */
import { CAPABILITY_METHOD, type Capability, type VmhubPlugin } from '@vmhub/core';
import type { PluginFacts } from './load.ts';
import type { ShapeProblem } from './types.ts';

export interface Role {
  /** The file's name without extension, e.g. `x11-click`. */
  readonly name: string;
  readonly rule: 'role-file' | 'capability-file';
  /** What the file holds, for the message. */
  readonly holds: string;
}

const kebab = (s: string) => s.replace(/_/g, '-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export const COMMON_ROLES: readonly Role[] = [
  { name: 'index', rule: 'role-file', holds: 'the public API; its default export is the plugin' },
  { name: 'options', rule: 'role-file', holds: 'the options schema (TypeBox)' },
];

/** The optional provider methods with a role file of their own. */
export const PROVIDER_METHOD_ROLES = ['channel', 'connect', 'console', 'state', 'secret', 'framebuffer'] as const;
const PROVIDER_ROLES = ['provider', 'create', 'destroy', 'list', 'ready', 'status'] as const;

/** The role files a plugin needs, given what it has. */
export function rolesOf({ plugin, has }: PluginFacts): Role[] {
  const id = plugin.id;
  const roles = [...COMMON_ROLES];
  if (plugin.kind === 'adapter') {
    roles.push({ name: 'adapter', rule: 'role-file', holds: 'defineAdapter({...}) from @vmhub/core/adapter-kit' });
    roles.push({ name: 'runtime', rule: 'role-file', holds: 'the per-lease runtime every capability function gets' });
    roles.push(...capabilityRoles(plugin));
    if (has.has('screenSize')) roles.push({ name: `${id}-screen-size`, rule: 'role-file', holds: 'the session\'s screenSize()' });
    if (has.has('probe')) roles.push({ name: 'probe', rule: 'role-file', holds: 'the session\'s probe() (what this machine lacks)' });
  } else {
    for (const r of PROVIDER_ROLES) roles.push({ name: `${id}-${r}`, rule: 'role-file', holds: r === 'provider' ? 'the provider\'s methods, wired from the role files' : `the provider's ${r}()` });
    for (const m of PROVIDER_METHOD_ROLES) if (has.has(m)) roles.push({ name: `${id}-${m}`, rule: 'role-file', holds: `the provider's ${m}()` });
    if (has.has('goldens')) roles.push({ name: `${id}-golden`, rule: 'role-file', holds: 'the provider\'s goldens()' });
  }
  return roles;
}

function capabilityRoles(plugin: VmhubPlugin & { capabilities: readonly Capability[] }): Role[] {
  return plugin.capabilities.map((cap) => ({
    name: `${plugin.id}-${kebab(cap)}`,
    rule: 'capability-file' as const,
    holds: cap === 'dispatch' ? 'the vm_dispatch verbs' : `the ${CAPABILITY_METHOD[cap]}() capability function`,
  }));
}

const stem = (file: string) => file.replace(/\.[cm]?[jt]s$/, '');

/** Missing role files, and adapter helpers that carry the `<id>-` prefix. `files`: the names directly under src/. */
export function roleProblems(facts: PluginFacts, files: readonly string[]): ShapeProblem[] {
  const stems = new Set(files.map(stem));
  const roles = rolesOf(facts);
  const problems: ShapeProblem[] = roles.filter((r) => !stems.has(r.name)).map((r) => ({
    rule: r.rule,
    file: `src/${r.name}.ts`,
    message: `${facts.plugin.kind} "${facts.plugin.id}" has no src/${r.name}.ts (${r.holds})`,
    fix: `put ${r.holds} in src/${r.name}.ts: one file name per role, the same in every vmhub plugin`,
  }));
  if (facts.plugin.kind === 'adapter') {
    const named = new Set(roles.map((r) => r.name));
    for (const file of files) {
      if (!file.startsWith(`${facts.plugin.id}-`) || named.has(stem(file))) continue;
      problems.push({ rule: 'prefix', file: `src/${file}`, message: `carries the ${facts.plugin.id}- prefix but serves no declared capability`, fix: `rename it by its role (runtime.ts, guest.ts, keys.ts, probe.ts, or what the helper does), without the ${facts.plugin.id}- prefix: the prefix marks capability files only` });
    }
  }
  return problems;
}
