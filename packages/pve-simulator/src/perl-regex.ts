/** Perl's `(?^:...)`/`(?^i:...)` groups become JS groups/modifier groups; PVE anchors every pattern. */
const cache = new Map<string, RegExp>();

export function perlRegex(src: string): RegExp {
  let r = cache.get(src);
  if (!r) {
    const js = src.replaceAll('(?^i:', '(?i:').replaceAll('(?^:', '(?:');
    r = new RegExp(`^(?:${js})$`);
    cache.set(src, r);
  }
  return r;
}
