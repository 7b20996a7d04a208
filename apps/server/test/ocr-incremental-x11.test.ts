// OCR in proportion to what changed (issue 35.2), through the built server on a real Xvfb desktop
// (Docker + the debian-x11 golden): a terminal full of text is read whole once; after one line is
// typed at its prompt, vm_wait {for: "text"} and vm_find_text find the new text at the prompt, and
// the server's debug log ("ocr read") shows those reads were of a few rows, not of the screen.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, leaseReady, machineBox, type Session } from './harness.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const box = machineBox('ocr-incr', 'oi');
let s: Session;
let lease = '';
let term: { x: number; y: number; width: number; height: number };

async function ok(tool: string, args: Record<string, unknown>): Promise<any> {
  const r = await s.call(tool, { lease_id: lease, ...args });
  assert.equal(r.isError, undefined, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

interface Read { kind: 'whole' | 'rows'; rows: number; height: number; ms: number }
/** The server's "ocr read" log lines, from the `from`-th on. */
function reads(from = 0): Read[] {
  return s.stderr().split('\n').filter((l) => l.includes('"ocr read"')).map((l) => JSON.parse(l) as Read).slice(from);
}

/** vm_find_text until `text` is found (the terminal draws what was typed a moment later). */
async function findText(text: string): Promise<any[]> {
  for (let i = 0; ; i++) {
    const matches = (await ok('vm_find_text', { text })).matches;
    if (matches.length || i === 10) return matches;
    await sleep(300);
  }
}

before(async () => {
  box.write();
  s = await connect(box, { VMHUB_LOG_LEVEL: 'debug' });
});
after(() => box.end(s, [lease]));

describe('server: OCR re-reads only what changed (docker + debian-x11)', { timeout: 600_000 }, () => {
  it('lease → ready; a terminal full of text, read whole once', async () => {
    await leaseReady(s, { template: 'debian-x11', ttl_seconds: 1800 }, 120, (id) => { lease = id; });
    const launched = await ok('vm_launch', { app: 'xterm', args: ['-T', 'vmhub-ocr', '-geometry', '150x38+0+0', '-fa', 'DejaVu Sans Mono', '-fs', '11'], wait_seconds: 10 });
    await ok('vm_focus', { window: launched.window.id });
    term = (await ok('vm_list_windows', {})).windows.find((w: any) => w.id === launched.window.id);
    assert.equal((await ok('vm_wait', { for: 'settle', timeout_seconds: 20 })).satisfied, true);
    await ok('vm_type', { text: 'for i in $(seq 1 60); do echo line $i harbour pelican marmalade window settings; done' });
    await ok('vm_key', { keys: 'Return' });
    assert.equal((await ok('vm_wait', { for: 'settle', timeout_seconds: 20 })).satisfied, true);
    const found = await findText('marmalade');
    assert.ok(found.length >= 20, `a full terminal: ${found.length} matches of "marmalade"`);
    assert.equal(reads().at(-1)?.kind, 'whole', JSON.stringify(reads()));
  });

  it('vm_wait {for: "text"} and vm_find_text find a line typed at the prompt, reading only rows around it', async () => {
    const from = reads().length;
    await ok('vm_type', { text: 'echo lighthouse ' });
    const waited = await ok('vm_wait', { for: 'text', text: 'lighthouse', timeout_seconds: 30 });
    assert.equal(waited.satisfied, true, `${JSON.stringify(waited)}; reads: ${JSON.stringify(reads(from))}`);
    await ok('vm_type', { text: 'quartz ' });
    await sleep(300);
    const started = Date.now();
    const found = await findText('quartz');
    const ms = Date.now() - started;
    assert.ok(found.length >= 1, 'the typed word is found');
    // (a space after each word keeps the block cursor off its last letter)
    // at the prompt: the terminal's bottom part, right of "user@vmhub:~$ echo lighthouse"
    assert.ok(found[0].y > term.y + term.height / 2, `match ${JSON.stringify(found[0])} in the lower half of ${JSON.stringify(term)}`);
    assert.equal((await ok('vm_find_text', { text: 'lighthouse' })).matches.length, 1);
    const since = reads(from);
    assert.ok(since.length >= 2, JSON.stringify(since));
    for (const r of since) assert.ok(r.kind === 'rows' && r.rows <= r.height / 8, `a read of a few rows: ${JSON.stringify(r)}`);
    const whole = reads().filter((r) => r.kind === 'whole').at(-1);
    console.error(`[ocr-incremental] vm_find_text after typing: ${ms} ms; reads since the line was typed: ${JSON.stringify(since.map(({ kind, rows, ms }) => ({ kind, rows, ms })))}; the whole read before: ${whole?.ms} ms`);
  });

  it('release', async () => {
    await ok('vm_lease_release', {});
    lease = '';
  });
});
