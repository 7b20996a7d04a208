/**
 * A template's provider_options are checked by core when templates load, against the schema the
 * plugin hands defineProvider: a misspelt key is refused, naming it, instead of silently ignored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError, type TemplateConfig } from '@vmhub/core';
import proxmoxProvider from './index.ts';
import { templateOptions } from './template-options.ts';

const tpl = (provider_options: Record<string, unknown>): TemplateConfig => ({ id: 'pve-t', provider: 'proxmox', adapter: 'x11', os: 'linux', golden: 'debian-golden', provider_options });

describe('proxmox: template options', () => {
  it('the documented options pass, and defaults are filled when read', () => {
    const t = tpl({ pool: 'vmhub', nodes: ['pve1', 'pve2'], ssh_jump: { host: 'jump', user: 'ops', private_key_path: '/k' } });
    assert.doesNotThrow(() => proxmoxProvider.checkTemplate(t));
    const read = templateOptions(t);
    assert.deepEqual([read.channel, read.ssh_port, read.full_clone, read.ssh_jump?.port], ['ssh', 22, false, 22]);
  });

  for (const [label, options, key] of [
    ['a misspelt key', { adress_override: '10.0.0.5:22' }, 'adress_override'],
    ['an unknown key inside ssh_jump', { ssh_jump: { host: 'jump', user: 'ops', private_key_path: '/k', pasword: 'x' } }, 'pasword'],
  ] as const) {
    it(`refuses ${label}, naming it and the template`, () => {
      assert.throws(() => proxmoxProvider.checkTemplate(tpl(options)), (e: unknown) =>
        VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.message.includes(`unknown field "${key}"`) && e.message.includes('"pve-t"'));
    });
  }

  it('refuses a wrong type, naming the key', () => {
    assert.throws(() => proxmoxProvider.checkTemplate(tpl({ channel: 'telnet' })), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.message.includes('channel'));
  });
});
