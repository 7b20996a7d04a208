/**
 * `vmhub-server golden ...`: golden images come from the provider packages that use them.
 * Each provider package that builds goldens exports `goldens` (name → {status, build}).
 */
import { log } from './log.ts';

interface GoldenEntry { provider: string; status(): Promise<{ built: boolean; ref: string; detail?: string }>; build(o: { log: (m: string) => void }): Promise<{ ref: string }> }

async function entries(): Promise<Map<string, GoldenEntry>> {
  const out = new Map<string, GoldenEntry>();
  for (const pkg of ['@vmhub/provider-docker', '@vmhub/provider-qemu']) {
    try {
      const mod = await import(pkg) as { goldens?: Record<string, Omit<GoldenEntry, 'provider'>> };
      for (const [name, g] of Object.entries(mod.goldens ?? {})) out.set(name, { provider: pkg, ...g });
    } catch (err) {
      log('debug', 'golden provider not loadable', { pkg, error: (err as Error).message });
    }
  }
  return out;
}

export async function goldenCommand(args: string[]): Promise<number> {
  const [verb, name] = args;
  const all = await entries();
  if (verb === 'status') {
    for (const [n, g] of all) {
      if (name && n !== name) continue;
      const s = await g.status().catch((e: Error) => ({ built: false, ref: '?', detail: e.message }));
      process.stdout.write(`${n}\t${s.built ? 'built' : 'missing'}\t${s.ref}\t${g.provider}${s.detail ? `\t${s.detail}` : ''}\n`);
    }
    return 0;
  }
  if (verb === 'build' && name) {
    const g = all.get(name);
    if (!g) { process.stderr.write(`unknown golden "${name}"; known: ${[...all.keys()].join(', ') || '(none)'}\n`); return 2; }
    const started = Date.now();
    const r = await g.build({ log: (m) => process.stderr.write(`[golden ${name}] ${m}\n`) });
    process.stdout.write(`${name}\t${r.ref}\tbuilt or up to date in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return 0;
  }
  process.stderr.write('usage: vmhub-server golden build <name> | golden status [name]\n');
  return 2;
}
