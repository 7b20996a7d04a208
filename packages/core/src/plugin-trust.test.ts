// Plugin discovery looks only in the install's own node_modules, and imports nothing another user
// could have written (hardening issue, item 1). Every planted plugin writes a marker file when it
// is imported: the marker must never appear.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { CONTRACT_VERSION } from './define.ts';
import { untrustedChain, untrustedPath } from './file-trust.ts';
import { installRoots } from './install-roots.ts';
import { discoverPlugins } from './plugins.ts';

const area = mkdtempSync(join(tmpdir(), 'vmhub-plugin-trust-'));
after(() => rmSync(area, { recursive: true, force: true }));
const isRoot = process.geteuid?.() === 0;
const OTHER_UID = 65534; // nobody

/** A package whose import writes `marker` (when given) and default-exports a provider. */
function pkg(dir: string, name: string, marker?: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', exports: { '.': './index.js' } }));
  const write = marker ? `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'imported');\n` : '';
  writeFileSync(join(dir, 'index.js'), `${write}export default { kind: 'provider', id: ${JSON.stringify(name.replace(/.*provider-/, ''))}, version: '1', contractVersion: ${CONTRACT_VERSION}, capabilities: [], verbs: [], templates: [], create() { return {}; } };\n`);
  return dir;
}

describe('core: plugins come only from the install\'s own node_modules', () => {
  // <top>/node_modules holds what another user planted; the app is installed below it, npm-style.
  const top = join(area, 'planted');
  const marker = join(area, 'planted-imported');
  const install = join(top, 'srv', 'node_modules');
  const app = join(install, '@vmhub', 'server');
  pkg(join(top, 'node_modules', 'vmhub-provider-planted'), 'vmhub-provider-planted', marker);
  pkg(join(top, 'node_modules', '@team', 'vmhub-provider-scoped'), '@team/vmhub-provider-scoped', marker);
  // A dependency of the app that this install lacks: Node's lookup would climb to the planted copy.
  pkg(join(top, 'node_modules', '@vmhub', 'provider-missing'), '@vmhub/provider-missing', marker);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: '@vmhub/server', dependencies: { '@vmhub/provider-ours': '1', '@vmhub/provider-missing': '1' } }));
  pkg(join(install, '@vmhub', 'provider-ours'), '@vmhub/provider-ours');
  pkg(join(install, 'vmhub-provider-beside'), 'vmhub-provider-beside');
  const from = pathToFileURL(join(app, 'dist', 'index.js')).href;

  it('an npm install: the node_modules holding the app (and the app\'s own), nothing above', () => {
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    assert.deepEqual(installRoots(app), [join(app, 'node_modules'), install]);
  });

  it('a planted vmhub-provider-* in a parent node_modules is neither scanned nor resolved, and never imported', async () => {
    const found = await discoverPlugins({ from, names: ['vmhub-provider-planted'] });
    const ok = found.filter((p) => !p.error).map((p) => p.package).sort();
    assert.deepEqual(ok, ['@vmhub/provider-ours', 'vmhub-provider-beside']);
    assert.equal(found.some((p) => p.package === '@team/vmhub-provider-scoped'), false, 'not scanned');
    const missing = found.find((p) => p.package === '@vmhub/provider-missing')!;
    assert.equal(missing.problem, 'NOT_INSTALLED');
    assert.match(missing.error!, new RegExp(`the copy in ${join(top, 'node_modules', '@vmhub', 'provider-missing')} is not used: packages are loaded only from this install's own node_modules`));
    assert.equal(found.find((p) => p.package === 'vmhub-provider-planted')?.problem, 'NOT_INSTALLED', 'named by package name, it is still looked for in the install only');
    assert.equal(existsSync(marker), false, 'no planted package was imported');
  });

  it('a subpath the installed package lacks is not looked for in the planted copy above', async () => {
    // Installed without "exports": Node would go on up to the parent's copy for a file it lacks.
    const ours = join(install, 'vmhub-provider-sub');
    mkdirSync(ours, { recursive: true });
    writeFileSync(join(ours, 'package.json'), JSON.stringify({ name: 'vmhub-provider-sub', version: '1.0.0', type: 'module', main: 'index.js' }));
    writeFileSync(join(ours, 'index.js'), 'export default [];\n');
    const theirs = pkg(join(top, 'node_modules', 'vmhub-provider-sub'), 'vmhub-provider-sub', marker);
    writeFileSync(join(theirs, 'package.json'), JSON.stringify({ name: 'vmhub-provider-sub', type: 'module', main: 'index.js' }));
    writeFileSync(join(theirs, 'extra.js'), `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'extra'); export default 1;\n`);
    const found = await discoverPlugins({ from, names: ['vmhub-provider-sub/extra.js'], scan: false });
    assert.equal(found.find((p) => p.package === 'vmhub-provider-sub/extra.js')?.problem, 'NOT_INSTALLED', JSON.stringify(found));
    assert.equal(existsSync(marker), false, 'the planted file was not imported');
    rmSync(ours, { recursive: true });
  });

  it('a workspace checkout: the app\'s node_modules and the workspace root\'s; an untrusted "workspace root" is ignored', () => {
    const ws = join(area, 'ws');
    mkdirSync(join(ws, 'apps', 'server', 'node_modules'), { recursive: true });
    mkdirSync(join(ws, 'node_modules'), { recursive: true });
    writeFileSync(join(ws, 'pnpm-workspace.yaml'), 'packages: [apps/*]\n');
    assert.deepEqual(installRoots(join(ws, 'apps', 'server')), [join(ws, 'apps', 'server', 'node_modules'), join(ws, 'node_modules')]);
    chmodSync(ws, 0o777);
    try {
      assert.deepEqual(installRoots(join(ws, 'apps', 'server')), [join(ws, 'apps', 'server', 'node_modules')], 'a world-writable folder is no workspace root');
    } finally {
      chmodSync(ws, 0o755);
    }
  });

  it('a pnpm install: the .pnpm folder\'s node_modules and the project\'s', () => {
    const project = join(area, 'pnpm-project');
    const real = join(project, 'node_modules', '.pnpm', '@vmhub+server@1.0.0', 'node_modules', '@vmhub', 'server');
    mkdirSync(real, { recursive: true });
    assert.deepEqual(installRoots(real), [join(project, 'node_modules', '.pnpm', '@vmhub+server@1.0.0', 'node_modules'), join(project, 'node_modules')]);
  });
});

describe('core: a plugin another user could write is refused and never imported', () => {
  const marker = join(area, 'unsafe-imported');
  const app = pathToFileURL(join(area, 'lone-app', 'index.js')).href;
  const refused = async (spec: string) => {
    const found = await discoverPlugins({ from: app, names: [spec], scan: false });
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0]!.problem, 'UNSAFE_PERMISSIONS', JSON.stringify(found[0]));
    assert.deepEqual(found[0]!.plugins, []);
    assert.equal(existsSync(marker), false, 'the refused plugin was not imported');
    return found[0]!.error!;
  };

  it('a world-writable plugin directory named by path: refused, the message names it and chmod', async () => {
    const dir = pkg(join(area, 'ww', 'vmhub-provider-ww'), 'vmhub-provider-ww', marker);
    chmodSync(dir, 0o777);
    const error = await refused(dir);
    assert.equal(error, `plugin vmhub-provider-ww (${join(dir, 'index.js')}) was not loaded: ${dir} is writable by its group and by others (mode 0777), so whoever can write it could run code as vmhub: chmod go-w ${dir} (or install the plugin where only you and root can write)`);
    chmodSync(dir, 0o755);
    const ok = await discoverPlugins({ from: app, names: [dir], scan: false });
    assert.equal(ok[0]!.error, undefined, 'fixed with chmod go-w, it loads');
    rmSync(marker, { force: true });
  });

  it('a group-writable entry file, and a folder between it and the package', async () => {
    const dir = pkg(join(area, 'gw', 'vmhub-provider-gw'), 'vmhub-provider-gw', marker);
    chmodSync(join(dir, 'index.js'), 0o664);
    assert.match(await refused(join(dir, 'index.js')), new RegExp(`${join(dir, 'index.js')} is writable by its group \\(mode 0664\\).*chmod go-w ${join(dir, 'index.js')}`));
    chmodSync(join(dir, 'index.js'), 0o644);
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'index.js'), `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x'); export default 1;\n`);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'vmhub-provider-gw', type: 'module', exports: './dist/index.js' }));
    chmodSync(join(dir, 'dist'), 0o777);
    assert.match(await refused(dir), new RegExp(`${join(dir, 'dist')} is writable`));
  });

  it('a plugin owned by another user (not root)', { skip: !isRoot && 'needs root to chown a file to another user' }, async () => {
    const dir = pkg(join(area, 'owned', 'vmhub-provider-owned'), 'vmhub-provider-owned', marker);
    chownSync(join(dir, 'index.js'), OTHER_UID, OTHER_UID);
    assert.match(await refused(dir), new RegExp(`${join(dir, 'index.js')} is owned by uid ${OTHER_UID}, not by the user running vmhub \\(uid 0\\) or root.*chown 0 ${join(dir, 'index.js')}`));
  });

  it('a symlink named in VMHUB_PLUGINS that another user owns', { skip: !isRoot && 'needs root to chown a link to another user' }, async () => {
    const dir = pkg(join(area, 'linked', 'vmhub-provider-linked'), 'vmhub-provider-linked', marker);
    const link = join(area, 'linked', 'link');
    symlinkSync(dir, link);
    lchownSync(link, OTHER_UID, OTHER_UID);
    assert.match(await refused(link), new RegExp(`${link} is a symlink that is owned by uid ${OTHER_UID}.*chown -h 0 ${link}`));
  });

  it('an installed plugin under a world-writable node_modules', async () => {
    const install = join(area, 'wwnm', 'node_modules');
    mkdirSync(join(install, 'app'), { recursive: true });
    writeFileSync(join(install, 'app', 'package.json'), JSON.stringify({ name: 'app' }));
    pkg(join(install, 'vmhub-provider-inst'), 'vmhub-provider-inst', marker);
    chmodSync(install, 0o777);
    const found = await discoverPlugins({ from: pathToFileURL(join(install, 'app', 'index.js')).href });
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0]!.problem, 'UNSAFE_PERMISSIONS');
    assert.match(found[0]!.error!, new RegExp(`${install} is writable by its group and by others \\(mode 0777\\).*chmod go-w ${install}`));
    assert.equal(existsSync(marker), false);
    chmodSync(install, 0o755);
  });

  it('untrustedChain checks the file and each folder up to the top, and only those', () => {
    const top = join(area, 'chain');
    mkdirSync(join(top, 'a', 'b'), { recursive: true });
    writeFileSync(join(top, 'a', 'b', 'f.js'), '');
    chmodSync(area, 0o755);
    assert.equal(untrustedChain(join(top, 'a', 'b', 'f.js'), top), undefined);
    chmodSync(join(top, 'a'), 0o775);
    assert.equal(untrustedChain(join(top, 'a', 'b', 'f.js'), top)?.path, join(top, 'a'));
    assert.equal(untrustedChain(join(top, 'a', 'b', 'f.js'), join(top, 'a', 'b')), undefined, 'above the top is not looked at');
    assert.equal(untrustedPath(join(top, 'missing')), undefined, 'a missing path is for its reader to report');
  });
});
