/**
 * `vmhub-server golden build|status`: golden images are built by the provider plugin that uses
 * them, through the contract (`ProviderPlugin.goldens(options)`): this file names no provider
 * package. Each build is content-hashed and skipped when up to date.
 */
import type { GoldenImages, ProviderPlugin } from '@vmhub/core';
import { discoverPlugins, loadConfig } from '@vmhub/core/config';

interface GoldenEntry {
  provider: string;
  images: GoldenImages;
}

async function entries(): Promise<Map<string, GoldenEntry>> {
  const config = loadConfig();
  const out = new Map<string, GoldenEntry>();
  const packages = await discoverPlugins({ from: import.meta.url, kinds: ['provider'], names: config.plugins });
  for (const pkg of packages) {
    for (const plugin of pkg.plugins) {
      if (plugin.kind !== 'provider') continue;
      let images: GoldenImages | undefined;
      try {
        images = (plugin as ProviderPlugin).goldens(config.providers[plugin.id] ?? {});
      } catch (err) {
        process.stderr.write(`[vmhub] provider "${plugin.id}" (${pkg.package}): cannot list its goldens: ${(err as Error).message}\n`);
      }
      for (const name of images?.names ?? []) if (!out.has(name)) out.set(name, { provider: pkg.package, images: images! });
    }
  }
  return out;
}

export async function goldenCommand(args: string[]): Promise<number> {
  const [verb, name] = args;
  if (verb !== 'status' && !(verb === 'build' && name)) {
    process.stderr.write('usage: vmhub-server golden build <name> | golden status [name]\n');
    return 2;
  }
  const all = await entries();
  if (verb === 'status') {
    for (const [n, g] of all) {
      if (name && n !== name) continue;
      const s = await g.images.status(n).catch((e: Error) => ({ built: false, ref: `? (${e.message})` }));
      process.stdout.write(`${n}\t${s.built ? 'built' : 'missing'}\t${s.ref}\t${g.provider}\n`);
    }
    return 0;
  }
  const g = all.get(name!);
  if (!g) { process.stderr.write(`unknown golden "${name}"; known: ${[...all.keys()].join(', ') || '(none: install a provider that builds goldens, e.g. @vmhub/provider-docker)'}\n`); return 2; }
  const started = Date.now();
  try {
    const r = await g.images.build(name!, { progress: (m) => process.stderr.write(`[golden ${name}] ${m}\n`) });
    process.stdout.write(`${name}\t${r.ref}\t${r.rebuilt ? 'built' : 'up to date'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`[golden ${name}] failed: ${(err as Error).message}\n`);
    return 1;
  }
}
