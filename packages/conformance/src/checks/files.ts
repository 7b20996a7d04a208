/** put_file, get_file, clone_repo. */
import { createHash, randomBytes } from 'node:crypto';
import { check, expectError, expectOk } from '../expect.ts';
import type { CheckTable, SuiteEnv } from './env.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Read a guest file back through vm_get_file, else vm_exec cat; undefined when neither is declared. */
export async function readBack(env: SuiteEnv, path: string): Promise<Buffer | undefined> {
  if (env.declared('get_file')) {
    const s = expectOk(await env.conn.call('vm_get_file', { path }), `vm_get_file ${path}`, 'getFile() must return the file\'s bytes');
    return s.content !== undefined ? Buffer.from(s.content as string, 'utf8') : Buffer.from(s.content_base64 as string, 'base64');
  }
  if (env.declared('exec')) {
    const s = expectOk(await env.conn.call('vm_exec', { command: [...env.exec.cat, path] }), `vm_exec cat ${path}`, 'exec() must run argv');
    return Buffer.from(s.stdout as string, 'utf8');
  }
  return undefined;
}

export const FILE_CHECKS: CheckTable = {
  put_file: [
    {
      name: 'writes 64 KB of random binary byte-exact',
      async run(env, t) {
        const data = randomBytes(64 * 1024);
        const path = `${env.scratch}/put/blob.bin`;
        const s = expectOk(await env.conn.call('vm_put_file', { path, content_base64: data.toString('base64') }), `vm_put_file ${path}`, 'putFile() must write the bytes at the absolute path given, creating parent directories');
        check(s.size === data.length && s.sha256 === sha256(data), `vm_put_file reports size ${String(s.size)}`, 'the router computes size and sha256; write data unchanged');
        if (!env.declared('get_file')) { t.diagnostic('content not read back: get_file is not declared'); return; }
        const r = expectOk(await env.conn.call('vm_get_file', { path }), `vm_get_file ${path}`, 'getFile() must read what putFile() wrote');
        const back = r.content_base64 !== undefined ? Buffer.from(r.content_base64 as string, 'base64') : Buffer.from(r.content as string, 'utf8');
        check(back.equals(data), `read back ${back.length} bytes (sha256 ${sha256(back).slice(0, 12)}) that differ from the ${data.length} written (${sha256(data).slice(0, 12)})`, 'move bytes unchanged: no text mode, no newline translation, no truncation');
      },
    },
    {
      name: 'a ".." path answers INVALID_REQUEST',
      async run(env) {
        expectError(await env.conn.call('vm_put_file', { path: `${env.scratch}/../../etc/vmhub-escape`, content: 'x' }), 'INVALID_REQUEST', 'vm_put_file with ".."', 'paths are resolved by the router (resolveGuestPath); do not resolve ".." yourself');
      },
    },
    {
      name: 'a relative path lands under the channel\'s home (core resolves it; the adapter gets it absolute)',
      async run(env, t) {
        const home = await env.conn.lease.channel().then((c) => c.home, () => undefined);
        if (!home) { t.skip('the lease has no channel with a home: relative paths resolve against "/root"'); return; }
        const rel = `${env.scratch}/rel/where.txt`;
        const s = expectOk(await env.conn.call('vm_put_file', { path: rel, content: 'here' }), `vm_put_file ${rel}`, 'putFile() must write at the absolute path it is given');
        check(s.path === `${home}/${rel}`, `vm_put_file reports ${String(s.path)}, not ${home}/${rel}`, 'the router resolves relative paths against GuestChannel.home: report the real home from the channel');
        const back = await readBack(env, `${home}/${rel}`);
        if (back) check(back.toString('utf8') === 'here', `${home}/${rel} reads back ${JSON.stringify(back.toString('utf8').slice(0, 40))}`, 'write at exactly the path given (it is absolute and normalised): do not resolve it again against another directory');
      },
    },
  ],
  get_file: [
    {
      name: 'a missing file answers NOT_FOUND',
      async run(env) {
        expectError(await env.conn.call('vm_get_file', { path: `${env.scratch}/no-such-file-${randomBytes(4).toString('hex')}` }), 'NOT_FOUND', 'vm_get_file of a missing file', 'throw new VmhubError("NOT_FOUND", ...) when the file does not exist');
      },
    },
    {
      name: 'a ".." path answers INVALID_REQUEST',
      async run(env) {
        expectError(await env.conn.call('vm_get_file', { path: '../../etc/passwd' }), 'INVALID_REQUEST', 'vm_get_file with ".."', 'paths are resolved by the router (resolveGuestPath); do not resolve ".." yourself');
      },
    },
    {
      name: 'max_bytes smaller than the file answers INVALID_REQUEST',
      async run(env, t) {
        if (!env.declared('put_file')) { t.skip('put_file is not declared: the suite has no file of known size to read'); return; }
        const path = `${env.scratch}/get/ten.txt`;
        expectOk(await env.conn.call('vm_put_file', { path, content: '0123456789' }), `vm_put_file ${path}`, 'putFile() must write the file');
        expectError(await env.conn.call('vm_get_file', { path, max_bytes: 4 }), 'INVALID_REQUEST', 'vm_get_file {max_bytes: 4} of a 10-byte file', 'refuse files over max_bytes with INVALID_REQUEST (or return them whole and let the router refuse)');
      },
    },
  ],
  clone_repo: [
    {
      name: 'unpacks the host-made clone at dest (a file reads back)',
      async run(env, t) {
        const dest = `${env.scratch}/clone`;
        const s = expectOk(await env.conn.call('vm_clone_repo', { url: 'https://example.invalid/vmhub-conformance.git', dest }), 'vm_clone_repo', 'cloneRepo() must unpack the archive stream (a tar of the working tree and .git) into dest, creating it');
        check(s.files === 2, `vm_clone_repo reports ${String(s.files)} files`, 'the router reports the host clone\'s count; do not alter it');
        const back = await readBack(env, `${dest}/README.md`);
        if (back === undefined) { t.diagnostic('not read back: neither get_file nor exec is declared'); return; }
        check(back.toString() === 'vmhub conformance clone\n', `README.md in the clone reads ${JSON.stringify(back.toString().slice(0, 80))}`, 'extract every entry of the archive under dest, keeping relative paths');
        const head = await readBack(env, `${dest}/.git/HEAD`);
        check(head?.toString() === 'ref: refs/heads/main\n', `.git/HEAD in the clone reads ${JSON.stringify(head?.toString())}`, 'keep the .git directory: agents run git inside the clone');
      },
    },
  ],
};
