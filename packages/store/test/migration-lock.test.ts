// PostgreSQL's migration lock: eight processes (on the built package) open one fresh database at
// the same moment; all succeed, vmhub_schema holds each version exactly once, and the schema is
// exactly the one a single process migrates to.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS } from '../dist/index.js';
import { forDialects } from './dialects.ts';
import { schemaShape, withClient } from './pg-client.ts';

const run = promisify(execFile);
const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

// Every child waits for the same wall-clock instant, then opens the store.
const worker = `
const { Store } = await import(process.argv[1]);
const [path, at] = [process.argv[2], Number(process.argv[3])];
await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
const store = new Store({ path });
const info = await store.schemaInfo();
await store.close();
console.log(JSON.stringify(info));
`;

forDialects('store: migration lock', (d) => {
  it('eight processes migrating one fresh database at once all succeed and migrate once', { timeout: 120_000 }, async () => {
    const path = await d.fresh('raced');
    const at = Date.now() + 1500;
    const infos = await Promise.all(Array.from({ length: 8 }, () =>
      run(process.execPath, ['--input-type=module', '-e', worker, entry, path, String(at)], { timeout: 110_000 }).then((r) => JSON.parse(r.stdout) as { version: number; tables: string[] })));
    const latest = MIGRATIONS.at(-1)!.version;
    assert.equal(infos.length, 8);
    for (const info of infos) assert.equal(info.version, latest);

    const versions = await withClient(path, async (c) => (await c.query<{ version: number; n: string }>('select version, count(*) as n from vmhub_schema group by version order by version')).rows);
    assert.deepEqual(versions.map((r) => [r.version, Number(r.n)]), MIGRATIONS.map((m) => [m.version, 1]), 'each version recorded exactly once');

    const reference = await d.fresh('reference');
    const one = d.connect(reference);
    await one.ready();
    await one.close();
    const [raced, single] = await Promise.all([schemaShape(path), schemaShape(reference)]);
    for (const t of ['events', 'leases', 'locks', 'machines', 'vmhub_schema']) assert.ok(raced.tables.includes(t), `table ${t}`);
    assert.deepEqual(raced, single, 'the same tables, columns and indexes as one process makes');
  });
}, { only: ['postgres'] });
