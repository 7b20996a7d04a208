/** What scripts/pack.mjs writes to packed.json, and the closures the install tests take from it. */

export interface Packed { name: string; version: string; tarball: string; size: number; budget: number | null; manifest: any; problems: string[] }

/** The package and every packed package it reaches (dependencies, optional, peer): what the registry would serve for `npm install <name>`. */
export function packedClosure(list: Packed[], name: string): Packed[] {
  const byName = new Map(list.map((p) => [p.name, p]));
  const want = new Set<string>();
  const visit = (n: string) => {
    const p = byName.get(n);
    if (!p || want.has(n)) return;
    want.add(n);
    for (const dep of Object.keys({ ...p.manifest.dependencies, ...p.manifest.optionalDependencies, ...p.manifest.peerDependencies })) visit(dep);
  };
  visit(name);
  return list.filter((p) => want.has(p.name));
}
