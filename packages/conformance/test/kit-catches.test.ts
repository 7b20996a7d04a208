// The kit fails broken plugins, and its messages say how to fix them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';

it('broken plugins fail the suites with fix-it messages', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vmhub-broken-'));
  try {
    const fixture = new URL('./fixtures/broken-plugins.fixture.ts', import.meta.url).pathname;
    // A nested runner inherits NODE_TEST_CONTEXT and would report to us instead of to stdout.
    const env: NodeJS.ProcessEnv = { ...process.env, BROKEN_DIR: dir };
    delete env.NODE_TEST_CONTEXT;
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--test', '--test-reporter=tap', fixture], { env, timeout: 50_000, maxBuffer: 16 * 1024 * 1024 }, (err, out) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout: out });
      });
    });
    assert.notEqual(code, 0, 'the run must fail');
    for (const expected of [
      /not ok \d+ - writes 64 KB of random binary byte-exact/,
      /fix: move bytes unchanged: no text mode, no newline translation, no truncation/,
      // the target's name and its diagnose() output, indented, in the failure's message
      /target: fake host\n\s+the target's diagnosis:\n\s+sloppy-diagnosis: line one\n\s+sloppy-diagnosis: line two/,
      /not ok \d+ - honours timeout_seconds/,
      /fix: when timeout_ms passes, kill the process/,
      /not ok \d+ - destroy\(\) with a forged identity answers "identity_mismatch"/,
      /provider\.destroy returned 'destroyed' for a forged identity/,
      /fix: destroy must re-read the machine by external_id and compare the identity/,
      // a restart that trusts the external id, and a figure it does not know given as -1
      /not ok \d+ - restart\(\), where restartSupport\(\) says so/,
      /restart\(\) of a forged identity resolved/,
      /fix: re-read the machine by its identity before restarting it/,
      /stats\(\) returned cpu_percent: -1/,
      /fix: leave out a figure you cannot measure/,
      // a session that is never really disposed (its watcher keeps running in the guest)
      /not ok \d+ - sloppy \(fake host\): a session ends cleanly/,
      /the session left 1 guest command\(s\) running 3 s after dispose\(\): \[\\?"sleep\\?",\\?"30\\?"\]/,
      /fix: dispose\(\) must stop every command the session started/,
      // a plugin built for another contract
      /not ok \d+ - outdated: plugin shape and contract version/,
      /adapter speaks contract 0, this @vmhub\/core serves contracts 1–2/,
      // a declared capability that is missing
      /not ok \d+ - boastful: plugin shape and contract version/,
      /declares \\?"screenshot\\?" but its session does not implement screenshot\(\)/,
      // a machine without /bin/sh whose adapter does not say what its shell is
      /not ok \d+ - shellless: exec\n/,
      /fix: return from shellArgv\(command\) the argv of this machine's shell running command/,
    ]) assert.match(stdout, expected);
    // The same machine, its adapter giving shellArgv: every exec check passes.
    assert.match(stdout, /^\s*ok \d+ - shelled: exec$/m);
    // A contract-1 adapter runs the same suite through core's shim, and passes it.
    assert.match(stdout, /^\s*ok \d+ - elder: plugin shape and contract version$/m);
    assert.match(stdout, /^\s*ok \d+ - elder: exec$/m);
    assert.match(stdout, /^\s*ok \d+ - elder: a session ends cleanly: /m);
    // What the broken adapter does right still passes, and undeclared capabilities are still gated.
    // Anchored: an unanchored /ok N - …/ would also match "not ok N - …".
    assert.match(stdout, /^\s*ok \d+ - not declared: vm_screenshot answers CAPABILITY_UNAVAILABLE naming the adapter/m);
    assert.match(stdout, /^\s*ok \d+ - a missing file answers NOT_FOUND/m);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
