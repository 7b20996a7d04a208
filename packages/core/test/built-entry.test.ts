// The published entry points, as a consumer imports them (package exports → dist).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as core from '@vmhub/core';
import * as config from '@vmhub/core/config';
import * as router from '@vmhub/core/router';
import * as screenshot from '@vmhub/core/screenshot';
import * as ocr from '@vmhub/core/ocr';

it('core: the root entry is the contract; router, screenshot, ocr and config are subpaths', () => {
  for (const name of ['defineAdapter', 'defineProvider', 'VmhubError', 'CAPABILITIES', 'CAPABILITY_METHOD', 'TOOLS', 'CONTRACT_VERSION', 'resolveGuestPath', 'imageToScreen', 'readPackageVersion', 'Type']) {
    assert.ok(name in core, `@vmhub/core exports ${name}`);
  }
  for (const name of ['shapeScreenshot', 'loadConfig', 'discoverPlugins', 'createRouter', 'createTesseractEngine', 'findMatches']) assert.ok(!(name in core), `${name} is not in the root entry`);
  assert.equal(typeof screenshot.shapeScreenshot, 'function');
  assert.equal(typeof config.loadConfig, 'function');
  assert.equal(typeof config.discoverPlugins, 'function');
  assert.equal(typeof router.createRouter, 'function');
  for (const name of ['createTesseractEngine', 'detectTesseract', 'cachedOcr', 'findMatches', 'textElements'] as const) assert.equal(typeof (ocr as Record<string, unknown>)[name], 'function', `@vmhub/core/ocr exports ${name}`);
  assert.equal(core.CONTRACT_VERSION, 2);
  assert.equal(Object.keys(core.TOOLS).length, 32);
  const list = router.createRouter({ settings: { denyTools: [], screenshot: { format: 'png', maxWidth: 1, maxHeight: 1, maxBytes: 1 }, maxFileBytes: 1, callTimeoutSeconds: 1 } } as never).listTools();
  assert.equal(list.length, 32);
  for (const t of list) assert.ok(!JSON.stringify(t).includes('"required":[') || JSON.stringify(t.outputSchema).indexOf('"required"') === -1, `${t.name} output schema carries no required list`);
});
