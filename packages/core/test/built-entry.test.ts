// The published entry points, as a consumer imports them (package exports → dist).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as core from '@vmhub/core';
import * as router from '@vmhub/core/router';

it('core: the built entry exports the contract and the router subpath', () => {
  for (const name of ['defineAdapter', 'defineProvider', 'VmhubError', 'shapeScreenshot', 'loadConfig', 'discoverPlugins', 'CAPABILITIES', 'TOOLS', 'CONTRACT_VERSION']) {
    assert.ok(name in core, `@vmhub/core exports ${name}`);
  }
  assert.equal(typeof router.createRouter, 'function');
  assert.equal(Object.keys(core.TOOLS).length, 24);
  const list = router.createRouter({ settings: { denyTools: [], screenshot: { format: 'png', maxWidth: 1, maxHeight: 1, maxBytes: 1 }, maxFileBytes: 1, callTimeoutSeconds: 1 } } as never).listTools();
  assert.equal(list.length, 24);
  for (const t of list) assert.ok(!JSON.stringify(t).includes('"required":[') || JSON.stringify(t.outputSchema).indexOf('"required"') === -1, `${t.name} output schema carries no required list`);
});
