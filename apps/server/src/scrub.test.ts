// scrub.ts: credentials out of text (URLs, assignments, headers, flags), what stays readable, and
// log lines (log.ts) written through it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSecretName, isStrongSecretName, scrubDeep, scrubText } from './scrub.ts';
import { log } from './log.ts';

describe('scrubText', () => {
  // What scrubText makes of each text, by kind of secret.
  const scrubbed: Record<string, Array<[string, string]>> = {
    'hides URL userinfo and every query and fragment value, keeping the rest of the URL': [
      ['https://user:tok@host/x?access_token=abc', 'https://***@host/x?access_token=***'],
      ['https://u:p@ss@github.com/o/r.git', 'https://***@github.com/o/r.git'],
      ['ssh://git@host:22/r.git', 'ssh://***@host:22/r.git'],
      ['https://h/r.git?access_token=a&ref=main;sig=b', 'https://h/r.git?access_token=***&ref=***;sig=***'],
      ['https://h/cb#access_token=a&state=b', 'https://h/cb#access_token=***&state=***'],
      ['https://h/x?rawtoken', 'https://h/x?***'],
      ['https://h/x?empty=', 'https://h/x?empty='],
      ["git clone 'https://x:t@h/r.git' && cd r", "git clone 'https://***@h/r.git' && cd r"],
      ['fatal: unable to access \'http://127.0.0.1:1/r.git?access_token=t/\': Failed to connect', 'fatal: unable to access \'http://127.0.0.1:1/r.git?access_token=***\': Failed to connect'],
      ['<a href="https://u:p@h/">', '<a href="https://***@h/">'],
    ],
    'hides values assigned to secret-like names: env, flags, JSON, headers, Bearer': [
      ['GITHUB_TOKEN=ghp_1 git push', 'GITHUB_TOKEN=*** git push'],
      ['export AWS_SECRET_ACCESS_KEY="a b"', 'export AWS_SECRET_ACCESS_KEY="***"'],
      ['--password=hunter2 --user=bob', '--password=*** --user=bob'],
      ['mysql --password hunter2 -u root', 'mysql --password *** -u root'],
      ['{"api_key": "k1", "name": "n"}', '{"api_key": "***", "name": "n"}'],
      ["{'Authorization':'Basic eDp5'}", "{'Authorization':'***'}"],
      ['curl -H "Authorization: Bearer abc" https://h/', 'curl -H "Authorization: ***" https://h/'],
      ['Cookie: sid=1; theme=dark', 'Cookie: ***'],
      ['X-Api-Key: k2', 'X-Api-Key: ***'],
      ['password: "x y"', 'password: "***"'],
      ['sent Bearer eyJhbGci.x.y to it', 'sent Bearer *** to it'],
      ['https://h/app;jsessionid=abc', 'https://h/app;jsessionid=***'],
    ],
    'hides GitHub tokens wherever they stand (they say what they are)': [
      ['pushed with ghs_16C7e42F292c6912E7710c838347Ae178B4a done', 'pushed with *** done'],
      ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token ***'],
      ['[github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz]', '[***]'],
      ['ghs_short stays', 'ghs_short stays'],
    ],
  };
  for (const [name, cases] of Object.entries(scrubbed)) it(name, () => {
    for (const [text, want] of cases) assert.equal(scrubText(text), want, text);
  });

  it('leaves ordinary text, key names, anchors and scp-style URLs alone', () => {
    for (const text of [
      'ctrl+shift+t Return F5', 'key: Return', 'no Wayland session: could not connect', 'git@github.com:o/r.git',
      'user@keyserver.example:repo.git', 'see https://github.com/o/r/blob/main/x.ts#L10', 'http://127.0.0.1:8080/mcp',
      'hello from the person', '/home/user/.ssh/known_hosts', 'a=1 b=2', 'I dismissed the update dialog; carry on from the editor.',
    ]) assert.equal(scrubText(text), text);
  });

  it('is idempotent', () => {
    for (const text of ['https://u:p@h/x?access_token=a#t=b', 'TOKEN=x', 'Authorization: Bearer y', '{"secret":"z"}']) {
      const once = scrubText(text);
      assert.equal(scrubText(once), once, text);
    }
  });

  it('names: any secret word as a case-insensitive substring; the prose forms need a qualifier for key and session', () => {
    for (const n of ['api_key', 'APIKEY', 'x-api-key', 'Authorization', 'access_token', 'GITHUB_TOKEN', 'db_password', 'passwd', 'passphrase', 'sessionid', 'Set-Cookie', 'credentials', 'client_secret', 'keys']) assert.ok(isSecretName(n), n);
    for (const n of ['url', 'path', 'text', 'verb', 'value', 'command', 'shell', 'cwd', 'app', 'window', 'ref', 'dest']) assert.ok(!isSecretName(n), n);
    for (const n of ['api_key', 'X-Api-Key', 'private-key', 'sessionid', 'Authorization', 'password']) assert.ok(isStrongSecretName(n), n);
    for (const n of ['key', 'keys', 'session', 'monkey']) assert.ok(!isStrongSecretName(n), n);
  });

  it('scrubDeep scrubs strings at any depth, keeps keys and their order, and leaves other objects alone', () => {
    const when = new Date(0);
    const out = scrubDeep({ msg: 'x', url: 'https://u:p@h/?t=1', list: ['TOKEN=a', 3], nested: { error: 'git failed: https://h/?access_token=z' }, when, auth: 'bearer' });
    assert.deepEqual(Object.keys(out), ['msg', 'url', 'list', 'nested', 'when', 'auth']);
    assert.deepEqual(out, { msg: 'x', url: 'https://***@h/?t=***', list: ['TOKEN=***', 3], nested: { error: 'git failed: https://h/?access_token=***' }, when, auth: 'bearer' });
  });
});

describe('log', () => {
  it('writes its message and data scrubbed', () => {
    const lines: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => { lines.push(String(chunk)); return true; }) as typeof process.stderr.write;
    try {
      log('warn', 'clone of https://u:LOGSECRET1@h/r.git failed', { error: 'fatal: https://h/r.git?access_token=LOGSECRET2', lease: 'l1', principals: ['a'] });
    } finally {
      process.stderr.write = write;
    }
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]!);
    assert.equal(line.msg, 'clone of https://***@h/r.git failed');
    assert.equal(line.error, 'fatal: https://h/r.git?access_token=***');
    assert.deepEqual([line.level, line.lease, line.principals], ['warn', 'l1', ['a']]);
    assert.ok(!lines[0]!.includes('LOGSECRET'));
  });
});
