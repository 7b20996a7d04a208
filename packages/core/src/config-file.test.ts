// The config file names plugins, which run as vmhub: one another user could write stops start-up
// (hardening issue, item 1); one that is not JSON is reported by path, line and column, never by
// its content (item 3).
import assert from 'node:assert/strict';
import { chmodSync, chownSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.ts';
import { jsonErrorOffset } from './config-file.ts';
import { VmhubError } from './errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-config-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const isRoot = process.geteuid?.() === 0;

/** loadConfig's error (it must throw a VmhubError). */
function failure(file: string, env: NodeJS.ProcessEnv = {}): VmhubError {
  try {
    loadConfig({ file, env });
  } catch (err) {
    assert.ok(VmhubError.is(err), `a VmhubError, got ${String(err)}`);
    return err as VmhubError;
  }
  assert.fail(`${file} loaded`);
}

describe('core: a config file another user could write stops start-up', () => {
  const good = join(dir, 'good.json');
  writeFileSync(good, JSON.stringify({ instance: 'trusted' }));
  chmodSync(good, 0o600);

  it('a file only its owner can write loads', () => {
    assert.equal(loadConfig({ file: good, env: {} }).instance, 'trusted');
  });

  it('group- or world-writable: refused, naming the path and chmod go-w', () => {
    for (const [mode, who] of [[0o666, 'its group and by others'], [0o620, 'its group'], [0o602, 'others']] as const) {
      const file = join(dir, `mode-${mode.toString(8)}.json`);
      writeFileSync(file, JSON.stringify({ plugins: ['/tmp/evil'] }));
      chmodSync(file, mode);
      const err = failure(file);
      assert.equal(err.code, 'INVALID_REQUEST');
      assert.equal(err.message, `[vmhub] config file ${file} is writable by ${who} (mode 0${mode.toString(8)}): vmhub does not read it, since whoever can write it could make vmhub run their code; fix: chmod go-w ${file}`);
      assert.match(err.hint, new RegExp(`chmod go-w ${file}`));
    }
  });

  it('also the default file (~/.config/vmhub/config.json)', () => {
    const home = join(dir, 'xdg');
    mkdirSync(join(home, 'vmhub'), { recursive: true });
    writeFileSync(join(home, 'vmhub', 'config.json'), '{}');
    chmodSync(join(home, 'vmhub', 'config.json'), 0o666);
    assert.throws(() => loadConfig({ env: { XDG_CONFIG_HOME: home } }), /config\.json is writable by its group and by others/);
  });

  it('owned by another user (not root): refused, naming chown', { skip: !isRoot && 'needs root to chown a file to another user' }, () => {
    const file = join(dir, 'theirs.json');
    writeFileSync(file, '{}');
    chownSync(file, 65534, 65534);
    assert.match(failure(file).message, new RegExp(`config file ${file} is owned by uid 65534, not by the user running vmhub \\(uid 0\\) or root: .*fix: chown 0 ${file}$`));
    const link = join(dir, 'their-link.json');
    symlinkSync(good, link);
    lchownSync(link, 65534, 65534);
    assert.match(failure(link).message, /is a symlink that is owned by uid 65534.*fix: chown -h 0 /);
  });
});

describe('core: a config file that is not JSON is reported without its content', () => {
  const secret = 'root:$6$Zx9secretHASHvalue:19000:0:99999:7:::';

  it('a symlink to a non-JSON file with a secret first line: the path and position, never the text', () => {
    const target = join(dir, 'shadow-like');
    writeFileSync(target, `${secret}\ndaemon:*:19000:0:99999:7:::\n`);
    chmodSync(target, 0o600);
    const link = join(dir, 'config-link.json');
    symlinkSync(target, link);
    const err = failure(link);
    assert.equal(err.message, `[vmhub] config file ${link} is not valid JSON: syntax error at line 1, column 1 (the file's content is not shown): fix the file`);
    for (const piece of [secret.slice(0, 4), 'Zx9', 'daemon', '"root']) assert.ok(!`${err.message} ${err.hint}`.includes(piece), `the error shows "${piece}"`);
  });

  it('the position is where the JSON breaks (line and column), whatever JSON.parse would quote', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{\n  "instance": "x",\n  "db": API_KEY_sk_live_123\n}\n');
    const err = failure(file);
    assert.match(err.message, /syntax error at line 3, column 9 /);
    assert.ok(!err.message.includes('API_KEY'), err.message);
  });

  it('jsonErrorOffset agrees with JSON.parse on where a document breaks', () => {
    const cases: [string, number][] = [
      ['API_KEY=sk', 0], ['{"a":1,}', 7], ['{"a": "x\ny"}', 8], ['', 0], ['{"a":1} x', 8], ['-', 1], ['{a:1}', 1], ['[1,2', 4],
      ['{"a":1', 6], ['tru', 3], ['[01]', 2], ['"\\x"', 2], ['1.', 2], ['{"a":[1,{"b":null}],"c":"\\u00e9"} ]', 34],
    ];
    for (const [text, offset] of cases) {
      assert.equal(jsonErrorOffset(text), offset, JSON.stringify(text));
      const message = (() => { try { JSON.parse(text); return undefined; } catch (e) { return (e as Error).message; } })();
      assert.ok(message !== undefined, `${JSON.stringify(text)} is not JSON`);
      const position = /at position (\d+)/.exec(message)?.[1];
      if (position !== undefined) assert.equal(offset, Number(position), `${JSON.stringify(text)}: JSON.parse says position ${position}`);
    }
  });
});
