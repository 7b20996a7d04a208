/**
 * The OpenAPI subset: where it came from, that it is closed under $ref, that the extraction
 * script reproduces it from itself, and that the compiled validators accept GitHub-shaped data
 * and refuse broken data.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { extractSubset, OPERATIONS } from '../scripts/extract-openapi.mjs';
import { compiledOperations, subsetDocument } from '../src/openapi.ts';

const subset = JSON.parse(readFileSync(new URL('../openapi/github-subset.json', import.meta.url), 'utf8'));

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('github-standin: the OpenAPI subset', () => {
  it('names its source: github/rest-api-description, the file, a commit', () => {
    assert.equal(subset.openapi, '3.0.3');
    assert.equal(subset['x-source'].repository, 'github/rest-api-description');
    assert.equal(subset['x-source'].file, 'descriptions/api.github.com/api.github.com.json');
    assert.match(subset['x-source'].commit, /^[0-9a-f]{40}$/);
    assert.deepEqual(subset['x-source'].operations, OPERATIONS);
  });

  it('holds exactly the three operations, and every $ref resolves inside it', () => {
    const ids = Object.values<any>(subset.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
    assert.deepEqual(ids.sort(), [...OPERATIONS].sort());
    for (const ref of refs(subset)) {
      const [, , kind, name] = ref.split('/');
      assert.ok(subset.components[kind!]?.[name!], `${ref} resolves`);
    }
    assert.equal(refs(subset).some((r) => r.startsWith('#/components/examples/')), false);
  });

  it('extract-openapi reproduces the subset from it (the script is what made it)', () => {
    const again = extractSubset(subset, subset['x-source']);
    assert.deepEqual(again.paths, subset.paths);
    assert.deepEqual(again.components, subset.components);
  });

  it('the compiled operations check what GitHub documents', () => {
    const ops = compiledOperations();
    assert.equal(subsetDocument().openapi, '3.0.3');
    const byId = Object.fromEntries(ops.map((o) => [o.id, o]));
    const mint = byId['apps/create-installation-access-token']!;
    assert.deepEqual(mint.match('/app/installations/12/access_tokens'), { installation_id: '12' });
    assert.deepEqual(mint.checkParams({ installation_id: '12' }), { params: { installation_id: 12 } });
    assert.ok(mint.checkParams({ installation_id: 'x' }).errors);
    assert.equal(mint.checkBody({ repositories: ['a'], permissions: { contents: 'write' } }), undefined);
    assert.match(mint.checkBody({ permissions: { contents: 'owner' } })!, /allowed values/);
    assert.equal(mint.checkResponse(201, { token: 't', expires_at: 'x' }), undefined);
    assert.match(mint.checkResponse(201, { token: 't' })!, /expires_at/);
    assert.match(mint.checkResponse(201, { token: 't', expires_at: 'x', repositories: [{ id: 1 }] })!, /required/);
    assert.equal(mint.checkResponse(422, { message: 'm', documentation_url: 'd' }), undefined);
    assert.match(mint.checkResponse(422, { message: 'm' })!, /documentation_url/);
    const revoke = byId['apps/revoke-installation-access-token']!;
    assert.equal(revoke.checkResponse(204, undefined), undefined);
    assert.match(revoke.checkResponse(204, {})!, /no content/);
    assert.equal(revoke.checkResponse(401, { message: 'Bad credentials', documentation_url: 'd' }), undefined, 'undeclared errors: basic-error');
    assert.match(revoke.checkResponse(200, {})!, /not declared/);
    const lookup = byId['apps/get-repo-installation']!;
    assert.match(lookup.checkResponse(200, { id: 1 })!, /required/);
  });
});
