// redact.ts over every tool's input schema (packages/core TOOLS): a marker secret in every
// argument position that can carry one — every string (URLs with userinfo and query values,
// assignments, headers, argv), every free-form map (vm_dispatch args, env-like maps, nested
// objects and arrays), every vm_batch step — is gone from the recorded value, while the tools'
// own non-secret fields stay readable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BATCH_ACTIONS, TOOLS, type ToolName } from '@vmhub/core';
import { isSecretName } from '../scrub.ts';
import { FILE_KEYS, MAX_STRING, OWN_FIELDS, REDACTED, redactArgs } from './redact.ts';

const M = 'S3CRET-MARKER-4f1d';
/** What a string position can carry a secret as; each is short, so no cut hides a failure. */
const CARRIERS = [
  `https://agent:${M}@git.example/r.git`,
  `https://${M}@git.example/r.git`,
  `https://git.example/r.git?access_token=${M}&ref=main`,
  `https://git.example/cb#access_token=${M}`,
  `git clone https://x:${M}@git.example/r.git && make`,
  `GITHUB_TOKEN=${M} make`,
  `curl -H "Authorization: Bearer ${M}" https://api.example/`,
  `{"api_key": "${M}"}`,
  `--password=${M}`,
  `Bearer ${M}`,
];
/**
 * A free-form map as an agent could send it (vm_dispatch args, an env map): secrets by key, at
 * every depth. `own`: spread into a vm_batch step, where `keys` is vm_key's own field (readable by
 * design, tested below), so it is left out there.
 */
const freeForm = (carrier: string, own = false) => ({
  api_key: M, authorization: M, Authorization: `Bearer ${M}`, GITHUB_TOKEN: M, 'X-Api-Key': M, password: M, passwd: M,
  client_secret: M, Cookie: M, sessionid: M, credentials: { user: 'u', pass: M }, ...(own ? {} : { keys: M }), token: 12345,
  env: { AWS_SECRET_ACCESS_KEY: M, PATH: '/usr/bin', keys: M }, nested: [{ auth: M }, [{ private_key: M }], carrier], url: carrier, argv: ['tool', '--token', M],
});

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; patternProperties?: Record<string, Schema>; additionalProperties?: unknown; enum?: unknown[] };

/** A value for `schema` with `carrier` in every string position and free-form maps where anything goes. */
function fill(schema: Schema, carrier: string, name = ''): unknown {
  if (schema.type === 'string') return carrier;
  if (schema.type === 'array') {
    if (name === 'actions') return BATCH_ACTIONS.map((action) => ({ action, ...fillTool(`vm_${action === 'wait_for' ? 'wait' : action}`, carrier), ...freeForm(carrier, true) }));
    return schema.items?.type === 'string' ? [carrier, '--token', M, carrier] : [fill(schema.items ?? {}, carrier)];
  }
  if (schema.type === 'object' && schema.properties && schema.additionalProperties === false) {
    return Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, fill(s, carrier, k)]));
  }
  if (schema.type === 'object' || schema.type === undefined) return freeForm(carrier); // Type.Record, Type.Unknown
  return 1; // numbers, integers, booleans carry nothing
}

function fillTool(tool: string, carrier: string): Record<string, unknown> {
  const schema = (TOOLS as Record<string, { input: Schema }>)[tool]?.input;
  if (!schema) return {};
  return fill(schema, carrier) as Record<string, unknown>;
}

describe('redactArgs over every tool', () => {
  for (const tool of Object.keys(TOOLS) as ToolName[]) {
    it(`${tool}: a marker in every string position and free-form map is gone`, () => {
      for (const carrier of CARRIERS) {
        const args = { ...fillTool(tool, carrier), lease_id: '00000000-0000-0000-0000-000000000000' };
        const out = JSON.stringify(redactArgs(args));
        assert.ok(!out.includes(M), `${tool} with ${carrier}: ${out}`);
        assert.ok(!out.includes('…('), `${tool}: nothing was cut, so the marker went by redaction`);
        assert.ok(!out.includes('00000000-0000'), 'lease_id is dropped');
      }
    });
  }

  it('covers every string-typed input field of every tool (the sweep above is not vacuous)', () => {
    let positions = 0;
    const count = (s: Schema): void => {
      if (s.type === 'string') positions++;
      for (const p of Object.values(s.properties ?? {})) count(p);
      if (s.items) count(s.items);
    };
    for (const t of Object.values(TOOLS)) count(t.input as Schema);
    assert.ok(positions >= 40, `${positions} string positions`);
    const clone = redactArgs(fillTool('vm_clone_repo', CARRIERS[2]!));
    assert.equal(clone.url, 'https://git.example/r.git?access_token=***&ref=***', 'the shape of a URL stays');
  });
});

describe('redactArgs: what stays readable, what does not', () => {
  it('the tools\' own fields named like secrets (vm_key keys, in vm_batch steps too) stay readable where the tool defines them', () => {
    assert.deepEqual(redactArgs({ lease_id: 'x', keys: 'ctrl+shift+t Return' }), { keys: 'ctrl+shift+t Return' });
    assert.deepEqual(redactArgs({ actions: [{ action: 'key', keys: 'F5' }, { action: 'type', text: 'hello' }] }), { actions: [{ action: 'key', keys: 'F5' }, { action: 'type', text: 'hello' }] });
    assert.deepEqual(redactArgs({ type: 'key', keys: 'ctrl+a' }), { type: 'key', keys: 'ctrl+a' }, 'the person\'s key input');
    // Decided: keystrokes are what the recording is for; a URL in them is still scrubbed by value.
    assert.deepEqual(redactArgs({ keys: 'h u n t e r 2' }), { keys: 'h u n t e r 2' });
    assert.deepEqual(redactArgs({ keys: `https://u:${M}@h/` }), { keys: 'https://***@h/' });
    // Inside free-form values the same name is judged like any other.
    assert.deepEqual(redactArgs({ verb: 'v', args: { keys: 'k', key: 'k2', value: 'v' } }), { verb: 'v', args: { keys: REDACTED, key: REDACTED, value: 'v' } });
    assert.deepEqual(redactArgs({ actions: [{ action: 'type', nested: { keys: 'k' } }] }), { actions: [{ action: 'type', nested: { keys: REDACTED } }] });
  });

  it('every tool input field whose name holds a secret word is a decided non-secret (OWN_FIELDS)', () => {
    const names = new Set<string>();
    const walk = (s: Schema): void => {
      for (const [k, p] of Object.entries(s.properties ?? {})) { names.add(k); walk(p); }
      if (s.items) walk(s.items);
    };
    for (const t of Object.values(TOOLS)) walk(t.input as Schema);
    assert.deepEqual([...names].filter(isSecretName).sort(), [...OWN_FIELDS].sort());
  });

  it('file bodies and stdin are hidden whole; plain values, paths and text stay; long strings are cut after scrubbing', () => {
    assert.deepEqual(redactArgs({ path: '/tmp/a', content: 'body', content_base64: 'Ym9keQ==', mode: '600' }), { path: '/tmp/a', content: REDACTED, content_base64: REDACTED, mode: '600' });
    assert.deepEqual(redactArgs({ command: ['cat'], stdin: 'input', cwd: '/srv' }), { command: ['cat'], stdin: REDACTED, cwd: '/srv' });
    assert.deepEqual(redactArgs({ x: 1, y: 2, text: 'hello', button: 'left', region: { x: 0, y: 0, width: 5, height: 5 } }), { x: 1, y: 2, text: 'hello', button: 'left', region: { x: 0, y: 0, width: 5, height: 5 } });
    const long = `${'x'.repeat(MAX_STRING - 10)} https://u:${M}@h/r.git`;
    const cutOne = redactArgs({ text: long }).text as string;
    assert.ok(!cutOne.includes(M) && !cutOne.includes(M.slice(0, 4)), cutOne);
    assert.match(cutOne, /…\(\d+ chars\)$/);
    assert.ok(FILE_KEYS.has('stdin'));
  });
});
