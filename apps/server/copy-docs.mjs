// Copies the user docs from the repository's docs/ into apps/server/docs/ at build time, so the
// installed package holds what its hints and `vmhub-server --help` name
// (node_modules/@vmhub/server/docs/configuration.md). The copy is generated (and git-ignored):
// docs/ stays the one place they are written.
//
// A relative link that leaves the shipped set would break in node_modules: a package README
// becomes its npm page, anything else (architecture notes, benchmarks) keeps its text only.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const from = join(root, 'docs');
const to = fileURLToPath(new URL('docs/', import.meta.url));

// For users of the server, and conformance.md for plugin authors (who test a plugin installed
// beside the server). Left out: architecture.md (for contributors) and proxmox-simulator.md (a
// private test package).
const SHIPPED = ['configuration.md', 'agent-tools.md', 'live-view.md', 'security.md', 'reaper.md', 'golden-images.md', 'setup-proxmox.md', 'vnc.md', 'conformance.md', 'adapters', 'providers'];

if (!existsSync(from)) {
  // Built outside the repository (no docs/ to copy): keep whatever docs/ the package has.
  console.warn(`copy-docs: ${from} not found; docs/ left as it is`);
  process.exit(0);
}

const files = SHIPPED.flatMap((entry) => {
  const full = join(from, entry);
  return readdirSync(dirname(full), { withFileTypes: true }).some((e) => e.name === entry && e.isDirectory())
    ? readdirSync(full).filter((f) => f.endsWith('.md')).map((f) => posix.join(entry, f))
    : [entry];
});
const shipped = new Set(files);

rmSync(to, { recursive: true, force: true });
for (const file of files) {
  mkdirSync(dirname(join(to, file)), { recursive: true });
  writeFileSync(join(to, file), relink(file, readFileSync(join(from, file), 'utf8')));
}

function relink(file, text) {
  return text.replace(/\[([^\]]+)\]\((?!https?:|mailto:|#)([^)#\s]+)(#[^)\s]*)?\)/g, (whole, label, target, anchor = '') => {
    const resolved = posix.normalize(posix.join(posix.dirname(file), target));
    if (shipped.has(resolved) || shipped.has(resolved.replace(/\/$/, '')) || SHIPPED.includes(resolved.replace(/\/$/, ''))) return whole;
    const pkg = /^\.\.\/(?:packages|apps)\/([^/]+)\/README\.md$/.exec(resolved)?.[1];
    if (pkg) return `[${label}](https://www.npmjs.com/package/@vmhub/${pkg})`;
    return label;
  });
}

console.log(`copy-docs: ${files.length} files into ${relative(root, to)}`);
