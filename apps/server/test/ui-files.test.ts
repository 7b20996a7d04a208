// The dashboard's files without a browser (the Chromium tests are live-view.test.ts): every page
// is well-formed HTML naming the spec's stable selectors, loads only assets the server serves,
// carries no inline script or external URL (CSP default-src 'self'), every script parses, and
// the input mapping the lease page is bundled from (ui/browser/input-map.ts, imported here)
// turns browser events into vm_* inputs correctly. UI_FILES holds the scripts build-ui.mjs
// bundled: run after a build (`pnpm --filter @vmhub/server build`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Script } from 'node:vm';
import { UI_FILES } from '../src/ui/index.ts';
import { keyAction, screenPoint, scrollAction, type KeyLike } from '../src/ui/browser/input-map.ts';

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

interface Tag { name: string; attrs: Record<string, string> }

/** A tiny structural check: tags nest and close, attributes are quoted; returns the start tags. */
function parseHtml(html: string, file: string): Tag[] {
  assert.match(html, /^<!doctype html>\n/i, `${file}: starts with <!doctype html>`);
  const body = html.replace(/^<!doctype html>/i, '').replace(/<!--[\s\S]*?-->/g, '');
  const stack: string[] = [];
  const tags: Tag[] = [];
  for (const m of body.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/g)) {
    const [, closing, rawName, rawAttrs] = m;
    const name = rawName!.toLowerCase();
    if (closing) {
      assert.equal(stack.pop(), name, `${file}: </${name}> closes the element opened last`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of rawAttrs!.matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)) attrs[a[1]!.toLowerCase()] = a[2] ?? '';
    tags.push({ name, attrs });
    if (!VOID.has(name)) stack.push(name);
  }
  assert.deepEqual(stack, [], `${file}: every element is closed`);
  // Whatever looks like a tag but did not match the pattern above is malformed.
  const stray = body.replace(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/g, '');
  assert.doesNotMatch(stray, /<\/?[a-zA-Z]/, `${file}: no malformed tag`);
  return tags;
}

function ids(tags: Tag[]): Map<string, Tag> {
  const out = new Map<string, Tag>();
  for (const t of tags) {
    if (t.attrs.id === undefined) continue;
    assert.ok(!out.has(t.attrs.id), `id "${t.attrs.id}" is unique`);
    out.set(t.attrs.id, t);
  }
  return out;
}

/** The element ids a page script looks up with $('…') (in the bundle: $("…"), maybe renamed $2). */
function idsUsed(js: string): string[] {
  return [...new Set([...js.matchAll(/\$\d*\(["']([a-z-]+)["']\)/g)].map((m) => m[1]!))];
}

const PAGES = {
  '/ui/': { script: '/ui/list.js', ids: ['leases', 'principal'] },
  '/ui/lease': { script: '/ui/lease.js', ids: ['screen', 'takeover', 'allow-commands', 'handback', 'handback-note', 'renew', 'release', 'control', 'events', 'steps', 'download', 'banner', 'principal', 'fullscreen', 'actual-size', 'pointer', 'agent-click', 'paste-text', 'paste', 'copy-out'] },
} as const;

describe('server: dashboard files', () => {
  it('serves exactly the five files the routes expect, with their content types', () => {
    assert.deepEqual(Object.keys(UI_FILES).sort(), ['/ui/', '/ui/app.css', '/ui/lease', '/ui/lease.js', '/ui/list.js']);
    assert.match(UI_FILES['/ui/']!.type, /^text\/html; charset=utf-8$/);
    assert.match(UI_FILES['/ui/lease']!.type, /^text\/html; charset=utf-8$/);
    assert.match(UI_FILES['/ui/app.css']!.type, /^text\/css/);
    assert.match(UI_FILES['/ui/list.js']!.type, /^text\/javascript/);
    assert.match(UI_FILES['/ui/lease.js']!.type, /^text\/javascript/);
  });

  for (const [path, want] of Object.entries(PAGES)) {
    it(`${path}: well-formed, the spec's ids present, assets only from UI_FILES, nothing inline`, () => {
      const html = UI_FILES[path]!.body;
      const tags = parseHtml(html, path);
      const byId = ids(tags);
      for (const id of want.ids) assert.ok(byId.has(id), `${path} has #${id}`);
      const scripts = tags.filter((t) => t.name === 'script');
      assert.deepEqual(scripts.map((t) => t.attrs.src), [want.script], `${path} loads only ${want.script}`);
      assert.doesNotMatch(html, /<script[^>]*>[^<]+<\/script>/, 'no inline script (CSP script-src self)');
      for (const t of tags) {
        for (const name of Object.keys(t.attrs)) {
          assert.ok(!name.startsWith('on'), `<${t.name} ${name}>: no inline handlers (CSP)`);
          assert.notEqual(name, 'style', `<${t.name} style>: no inline styles (CSP)`);
        }
        if (t.name === 'link') assert.ok(UI_FILES[t.attrs.href!], `<link href="${t.attrs.href}"> is served`);
        if (t.name === 'script') assert.ok(UI_FILES[t.attrs.src!], `<script src="${t.attrs.src}"> is served`);
      }
      assert.ok(tags.some((t) => t.name === 'link' && t.attrs.href === '/ui/app.css'), `${path} links the stylesheet`);
      // Every element the page script (and the shared part) looks up exists on the page.
      const used = idsUsed(UI_FILES[want.script]!.body);
      assert.ok(used.length >= 4, `${want.script}: the ids it looks up are found`);
      for (const id of used) assert.ok(byId.has(id), `${want.script} uses #${id}, which ${path} has`);
    });
  }

  it('the lease page: #screen is a focusable canvas counting frames, the table rows carry lease ids', () => {
    const screen = ids(parseHtml(UI_FILES['/ui/lease']!.body, '/ui/lease')).get('screen')!;
    assert.equal(screen.name, 'canvas', 'the stream paints rectangles onto it');
    assert.equal(screen.attrs.role, 'img');
    assert.match(screen.attrs['aria-label'] ?? '', /live screen/);
    assert.equal(screen.attrs['data-frame'], '0');
    assert.equal(screen.attrs.tabindex, '0', 'focusable, so key presses reach it');
    const list = ids(parseHtml(UI_FILES['/ui/']!.body, '/ui/'));
    assert.equal(list.get('leases')!.name, 'table');
    assert.match(UI_FILES['/ui/list.js']!.body, /["']data-lease-id["']: id/);
    assert.match(UI_FILES['/ui/lease.js']!.body, /setAttribute\(["']data-frame["']/);
    assert.match(UI_FILES['/ui/lease.js']!.body, /\/stream\?max_width=/, 'the page opens the lease\'s stream');
    assert.match(UI_FILES['/ui/lease.js']!.body, /["']data-tool["']: step\.tool/);
    assert.match(UI_FILES['/ui/lease.js']!.body, /\/recording\?format=html/);
  });

  it('no file names an external URL', () => {
    for (const [path, file] of Object.entries(UI_FILES)) {
      assert.doesNotMatch(file.body, /https?:\/\//i, `${path}: no http(s) URL`);
      assert.doesNotMatch(file.body, /(?:src|href)="\/\//i, `${path}: no protocol-relative URL`);
    }
    assert.doesNotMatch(UI_FILES['/ui/app.css']!.body, /@import|url\(/i, 'no CSS imports or url()');
  });

  it('every script parses as a classic script (one IIFE, nothing on window) and ships the tested input mapping', () => {
    for (const path of ['/ui/list.js', '/ui/lease.js']) {
      const body = UI_FILES[path]!.body;
      assert.doesNotThrow(() => new Script(body, { filename: path }), `${path} parses`);
      assert.match(body, /^"use strict";\n\(\(\) => \{\n[\s\S]*\n\}\)\(\);\n$/, `${path}: one strict IIFE`);
      assert.doesNotMatch(body, /\bimport\b[\s\S]*\bfrom\b\s*["']|\bexport\s/, `${path}: bundled, no module syntax`);
    }
    for (const name of ['keyAction', 'screenPoint', 'scrollAction', 'isPasteChord']) {
      assert.match(UI_FILES['/ui/lease.js']!.body, new RegExp(`function ${name}\\(`), `lease.js carries input-map.ts's ${name}`);
    }
  });
});

// The module the lease page is bundled from.
const map = { keyAction, screenPoint, scrollAction };

describe('server: dashboard input mapping', () => {
  const key = (init: KeyLike) => map.keyAction(init);

  it('maps named keys to vm_key names', () => {
    assert.deepEqual(key({ key: 'Enter', code: 'Enter' }), { type: 'key', keys: 'Return' });
    assert.deepEqual(key({ key: 'Backspace', code: 'Backspace' }), { type: 'key', keys: 'BackSpace' });
    assert.deepEqual(key({ key: 'ArrowLeft', code: 'ArrowLeft' }), { type: 'key', keys: 'Left' });
    assert.deepEqual(key({ key: 'ArrowUp', code: 'ArrowUp' }), { type: 'key', keys: 'Up' });
    assert.deepEqual(key({ key: 'Tab', code: 'Tab' }), { type: 'key', keys: 'Tab' });
    assert.deepEqual(key({ key: 'Escape', code: 'Escape' }), { type: 'key', keys: 'Escape' });
    assert.deepEqual(key({ key: 'F5', code: 'F5' }), { type: 'key', keys: 'F5' });
    assert.deepEqual(key({ key: 'PageDown', code: 'PageDown' }), { type: 'key', keys: 'Page_Down' });
  });

  it('maps chords to vm_key chords', () => {
    assert.deepEqual(key({ key: 'a', code: 'KeyA', ctrlKey: true }), { type: 'key', keys: 'ctrl+a' });
    assert.deepEqual(key({ key: 'A', code: 'KeyA', ctrlKey: true, shiftKey: true }), { type: 'key', keys: 'ctrl+shift+a' });
    assert.deepEqual(key({ key: 'Tab', code: 'Tab', shiftKey: true }), { type: 'key', keys: 'shift+Tab' });
    assert.deepEqual(key({ key: 'å', code: 'KeyA', altKey: true }), { type: 'key', keys: 'alt+a' }, 'the physical key, not the composed character');
    assert.deepEqual(key({ key: ' ', code: 'Space', ctrlKey: true }), { type: 'key', keys: 'ctrl+space' });
    assert.deepEqual(key({ key: 'l', code: 'KeyL', metaKey: true }), { type: 'key', keys: 'super+l' });
  });

  it('sends printable characters as text and ignores lone modifiers', () => {
    assert.deepEqual(key({ key: 'a', code: 'KeyA' }), { type: 'type', text: 'a' });
    assert.deepEqual(key({ key: 'A', code: 'KeyA', shiftKey: true }), { type: 'type', text: 'A' });
    assert.deepEqual(key({ key: ' ', code: 'Space' }), { type: 'type', text: ' ' });
    assert.deepEqual(key({ key: 'é', code: 'Quote' }), { type: 'type', text: 'é' });
    for (const lone of ['Control', 'Shift', 'Alt', 'Meta', 'CapsLock', 'Dead', 'Unidentified']) assert.equal(key({ key: lone }), null, lone);
  });

  it('maps a point on the displayed image to screen pixels through X-Image-Scale', () => {
    const rect = { left: 100, top: 50, width: 800, height: 500 };   // shown at 800×500 CSS px
    const frame = { naturalWidth: 640, naturalHeight: 400, scale: 0.5, screenWidth: 1280, screenHeight: 800 };
    assert.deepEqual(map.screenPoint(rect, 100, 50, frame), { x: 0, y: 0 });
    assert.deepEqual(map.screenPoint(rect, 500, 300, frame), { x: 640, y: 400 });
    assert.deepEqual(map.screenPoint(rect, 900, 550, frame), { x: 1279, y: 799 }, 'the far edge stays on the screen');
    assert.equal(map.screenPoint(rect, 99, 300, frame), null, 'off the image');
    assert.equal(map.screenPoint(rect, 500, 300, null), null, 'no frame yet');
    const noScale = { naturalWidth: 640, naturalHeight: 400, scale: 0, screenWidth: 1920, screenHeight: 1200 };
    assert.deepEqual(map.screenPoint(rect, 500, 300, noScale), { x: 960, y: 600 }, 'falls back to X-Screen-Width/Height');
  });

  it('maps the wheel to scroll notches', () => {
    assert.deepEqual(map.scrollAction(0, 100, 0), { direction: 'down', amount: 1 });
    assert.deepEqual(map.scrollAction(0, -300, 0), { direction: 'up', amount: 3 });
    assert.deepEqual(map.scrollAction(0, 6, 1), { direction: 'down', amount: 2 });
    assert.deepEqual(map.scrollAction(-120, 10, 0), { direction: 'left', amount: 1 });
    assert.deepEqual(map.scrollAction(0, 5000, 0), { direction: 'down', amount: 10 }, 'capped');
    assert.deepEqual(map.scrollAction(0, 4, 0), { direction: 'down', amount: 1 }, 'a small trackpad delta is still a notch');
    assert.equal(map.scrollAction(0, 0, 0), null);
  });
});
