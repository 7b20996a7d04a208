/**
 * The configuration examples in the docs are real configurations: every ```json block in README.md,
 * docs/ and the plugin READMEs that looks like a vmhub config file (top-level `instance`,
 * `providers`, `adapters` or `templates`) must load with core's loader, and every provider or
 * adapter options object in it must pass that plugin's own schema — so a renamed option cannot
 * leave a stale example behind.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import type { AdapterPlugin, ProviderPlugin } from '@vmhub/core';
import { loadConfig } from '@vmhub/core/config';
import consoleAdapter from '@vmhub/adapter-console';
import x11Adapter from '@vmhub/adapter-x11';
import dockerProvider from '@vmhub/provider-docker';
import proxmoxProvider from '@vmhub/provider-proxmox';
import qemuProvider from '@vmhub/provider-qemu';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const providers = new Map<string, ProviderPlugin<any>>([dockerProvider, proxmoxProvider, qemuProvider].map((p) => [p.id, p as ProviderPlugin<any>]));
const adapters = new Map<string, AdapterPlugin<any>>([consoleAdapter, x11Adapter].map((a) => [a.id, a as AdapterPlugin<any>]));
const tmp = mkdtempSync(join(tmpdir(), 'vmhub-docs-config-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function markdownFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(join(dir, e.name));
    }
  };
  walk(join(ROOT, 'docs'));
  for (const pkg of readdirSync(join(ROOT, 'packages'))) {
    const readme = join(ROOT, 'packages', pkg, 'README.md');
    if (existsSync(readme)) out.push(readme);
  }
  return out;
}

interface Example { where: string; config: Record<string, any> }

function configExamples(): Example[] {
  const found: Example[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/```json\n([\s\S]*?)```/g)) {
      let value: unknown;
      try { value = JSON.parse(m[1]!); } catch { continue; }
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      const keys = Object.keys(value);
      if (!keys.some((k) => ['instance', 'providers', 'adapters', 'templates'].includes(k))) continue;
      const line = text.slice(0, m.index).split('\n').length;
      found.push({ where: `${relative(ROOT, file)}:${line}`, config: value as Record<string, any> });
    }
  }
  return found;
}

const context = { identityPrefix: 'vmhub-docs-', log: () => {} };

describe('docs: configuration examples are valid', () => {
  const examples = configExamples();

  it('finds the examples (the configuration reference has one)', () => {
    assert.ok(examples.some((e) => e.where.startsWith('docs/configuration.md')), examples.map((e) => e.where).join(', '));
  });

  for (const ex of examples) {
    it(`${ex.where} loads, and its plugin options pass each plugin's schema`, () => {
      const file = join(tmp, 'config.json');
      writeFileSync(file, JSON.stringify(ex.config));
      const config = loadConfig({ file, env: {} });
      for (const [id, options] of Object.entries(config.providers)) {
        const plugin = providers.get(id);
        if (plugin) assert.doesNotThrow(() => plugin.create(options as never, context), `providers.${id}`);
      }
      for (const [id, options] of Object.entries(config.adapters)) {
        const plugin = adapters.get(id);
        if (plugin) assert.doesNotThrow(() => plugin.create(options as never), `adapters.${id}`);
      }
      for (const t of config.templates) {
        const plugin = adapters.get(t.adapter);
        if (plugin && t.adapter_options) assert.doesNotThrow(() => plugin.create({ ...(config.adapters[t.adapter] ?? {}), ...t.adapter_options } as never), `template ${t.id} adapter_options`);
      }
    });
  }
});
