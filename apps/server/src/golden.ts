/**
 * `vmhub-server golden build|status`: golden images are built by the provider plugin that uses
 * them, through the contract (`ProviderPlugin.goldens(options)`): this file names no provider
 * package. Each build is content-hashed and skipped when up to date.
 */
import { VmhubError, type GoldenImages, type ProviderPlugin } from '@vmhub/core';
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

/** The golden an operator named, or NOT_FOUND listing the goldens the installed providers build. */
function named(all: Map<string, GoldenEntry>, name: string): GoldenEntry {
  const g = all.get(name);
  if (g) return g;
  const known = [...all.keys()].join(', ') || '(none: install a provider that builds goldens, e.g. @vmhub/provider-docker)';
  throw new VmhubError('NOT_FOUND', `[vmhub] [golden] unknown golden "${name}"; known: ${known}`, { source: 'golden', details: { golden: name, known: [...all.keys()] }, hint: 'Pick a name from `vmhub-server golden status`, or install the provider package that builds it.' });
}

export async function goldenCommand(args: string[]): Promise<number> {
  const [verb, name] = args;
  if (verb !== 'status' && !(verb === 'build' && name)) {
    process.stderr.write('usage: vmhub-server golden build <name> | golden status [name]\n');
    return 2;
  }
  const all = await entries();
  if (verb === 'status') {
    const shown = name ? new Map([[name, named(all, name)]]) : all;
    for (const [n, g] of shown) {
      // A provider that cannot answer (its engine is down) says nothing about the golden: "unknown", with why.
      const s = await g.images.status(n).catch((e: Error) => ({ built: undefined, ref: `? (${e.message.replace(/^\[vmhub\](?: \[[^\]\s]+\])? ?/, '')})` }));
      process.stdout.write(`${n}\t${s.built === undefined ? 'unknown' : s.built ? 'built' : 'missing'}\t${s.ref}\t${g.provider}\n`);
    }
    return 0;
  }
  const g = named(all, name!);
  // Asked first, so an up-to-date golden is reported as such and its provider starts no build
  // (nor prints "building…"); build() still skips what it finds current if status() could not tell.
  const before = await g.images.status(name!).catch(() => undefined);
  if (before?.built) {
    process.stdout.write(`${name} is up to date (${before.ref}), nothing to build\n`);
    return 0;
  }
  const started = Date.now();
  try {
    const r = await g.images.build(name!, { progress: (m) => process.stderr.write(`[golden ${name}] ${m}\n`) });
    if (!r.rebuilt) process.stdout.write(`${name} is up to date (${r.ref}), nothing to build\n`);
    else process.stdout.write(`${name} built in ${((Date.now() - started) / 1000).toFixed(1)} s (${r.ref})\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`[golden ${name}] failed: ${(err as Error).message}\n`);
    return 1;
  }
}
