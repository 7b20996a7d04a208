/**
 * `vmhub-server golden build|status`: golden images are built by the provider package that uses
 * them (provider-docker: container images from a package manifest; provider-qemu: the offline
 * tiny-console kernel + initramfs). Each build is content-hashed and skipped when up to date.
 */

interface GoldenEntry {
  provider: string;
  status(): Promise<{ built: boolean; ref: string }>;
  build(log: (m: string) => void): Promise<{ ref: string; rebuilt?: boolean }>;
}

type DockerGoldens = typeof import('@vmhub/provider-docker');
type QemuGoldens = typeof import('@vmhub/provider-qemu');

async function entries(): Promise<Map<string, GoldenEntry>> {
  const out = new Map<string, GoldenEntry>();
  const docker = await import('@vmhub/provider-docker').catch(() => undefined) as DockerGoldens | undefined;
  if (docker) {
    for (const name of docker.goldenNames()) {
      out.set(name, {
        provider: '@vmhub/provider-docker',
        status: async () => { const s = await docker.goldenStatus(name); return { built: s.built, ref: s.tag }; },
        build: async (log) => { const r = await docker.buildGolden(name, { log }); return { ref: r.tag, rebuilt: r.rebuilt }; },
      });
    }
  }
  const qemu = await import('@vmhub/provider-qemu').catch(() => undefined) as QemuGoldens | undefined;
  if (qemu) {
    for (const name of qemu.GOLDEN_NAMES) {
      out.set(name, {
        provider: '@vmhub/provider-qemu',
        status: async () => { const s = await qemu.goldenStatus({ name }); return { built: s.built, ref: s.dir }; },
        build: async (log) => { log(`building ${name} (kernel + busybox initramfs)`); const s = await qemu.buildGolden(name); return { ref: s.dir }; },
      });
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
      const s = await g.status().catch((e: Error) => ({ built: false, ref: `? (${e.message})` }));
      process.stdout.write(`${n}\t${s.built ? 'built' : 'missing'}\t${s.ref}\t${g.provider}\n`);
    }
    return 0;
  }
  if (verb === 'build' && name) {
    const g = all.get(name);
    if (!g) { process.stderr.write(`unknown golden "${name}"; known: ${[...all.keys()].join(', ') || '(none: install @vmhub/provider-docker or @vmhub/provider-qemu)'}\n`); return 2; }
    const started = Date.now();
    try {
      const r = await g.build((m) => process.stderr.write(`[golden ${name}] ${m}\n`));
      process.stdout.write(`${name}\t${r.ref}\t${r.rebuilt === false ? 'up to date' : 'built'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      return 0;
    } catch (err) {
      process.stderr.write(`[golden ${name}] failed: ${(err as Error).message}\n`);
      return 1;
    }
  }
  process.stderr.write('usage: vmhub-server golden build <name> | golden status [name]\n');
  return 2;
}
