// A server SIGKILLed in the middle of an agent's work, on a real Docker debian-x11 lease and its
// SQLite store (hardening issue, items on vm_put_file and detached vm_exec):
// - a 30 MB vm_put_file cut off by the kill leaves the file as it was (never half of it), and
//   no temporary file (the exec helper ends its jobs' input before it kills them, and the
//   writer removes its file when its input is cut short); a completed put is whole.
// - a detached vm_exec job started by the killed server is answered by the next server on the
//   same store with the typed JOB_LOST naming the process that ended, not NOT_FOUND.
// The file is read in the guest with `docker exec` as root; the servers are the BUILT binary.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { connect, leaseReady, machineBox, type Session } from './harness.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const box = machineBox('killed', 'sk');
const { instance } = box;
// framebuffer off: nothing here is about the screen, and not every host shares unix sockets
// through /dev/shm (the shared-framebuffer path has its own tests).
box.write({ providers: { docker: { framebuffer: false } } });
const FILE = '/home/user/big.bin';
const OLD = 'the old content of big.bin\n';
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let s: Session | undefined;
let lease = '';
let container = '';
let job = '';
let killedPid = 0;

async function guest(script: string): Promise<string> {
  return (await run('docker', ['exec', '-u', 'root', container, 'sh', '-c', script], { maxBuffer: 8 << 20 })).stdout;
}

function gone(pid: number): boolean {
  try { process.kill(pid, 0); return false; } catch { return true; }
}

after(() => box.end(s, [lease]));

describe('a server SIGKILLed mid-work: files stay whole, jobs answer why they are gone', () => {
  it('server 1 leases debian-x11, writes the old file and starts a detached command', async () => {
    s = await connect(box);
    await leaseReady(s, { template: 'debian-x11', ttl_seconds: 900 }, 120, (id) => { lease = id; });
    container = `vmhub-${instance}-${lease}`;
    assert.equal((await s.call('vm_put_file', { lease_id: lease, path: FILE, content: OLD })).isError, undefined);
    const started = await s.call('vm_exec', { lease_id: lease, shell: 'sleep 600', detach: true });
    assert.equal(started.isError, undefined, JSON.stringify(started.structuredContent));
    job = started.structuredContent.job;
    assert.equal((await s.call('vm_exec', { lease_id: lease, job })).structuredContent.running, true);
  });

  it('SIGKILL during a 30 MB vm_put_file: the file keeps its old content, whole', async (t) => {
    const data = randomBytes(30 * 1024 * 1024);
    // The test's eyes in the guest: every few ms, the file's size and any temporary sibling's.
    const watcher = spawn('docker', ['exec', '-u', 'root', container, 'sh', '-c', `while :; do echo "$(stat -c %s ${FILE} 2>/dev/null) $(ls -a /home/user | grep -c vmhub-)"; sleep 0.005; done`], { stdio: ['ignore', 'pipe', 'ignore'] });
    let seen = '';
    const writing = new Promise<string>((resolve) => {
      let buf = '';
      watcher.stdout.on('data', (d) => {
        buf += d;
        const lines = buf.split('\n');
        buf = lines.pop()!;
        for (const line of lines) {
          const [size, temps] = line.split(' ');
          // The write has begun: a temporary file appeared, or the file itself changed size.
          if (Number(temps) > 0 || (size !== '' && Number(size) !== OLD.length)) { seen = line; resolve(line); }
        }
      });
    });
    const server = s!;
    killedPid = server.pid!;
    const put = server.call('vm_put_file', { lease_id: lease, path: FILE, content_base64: data.toString('base64') }).catch((e: Error) => e);
    const began = await Promise.race([writing, sleep(60_000).then(() => undefined)]);
    process.kill(killedPid, 'SIGKILL');
    watcher.kill();
    assert.ok(began, 'the write began in the guest within 60 s');
    t.diagnostic(`killed server ${killedPid} when the guest showed "${seen}" (file size, temporary files)`);
    assert.ok(await put instanceof Error, 'the put never answered');
    s = undefined;

    // The guest's writer sees its input end (or is killed with the exec helper): give it a moment.
    await sleep(2000);
    const [size, digest] = (await guest(`stat -c %s ${FILE}; sha256sum ${FILE}`)).split(/\s+/);
    assert.equal(Number(size), OLD.length, `the file is ${size} bytes: a cut-off write reached it`);
    assert.equal(digest, sha(OLD), 'the old content, whole');
    // The exec helper ended the writer's input before killing it: the writer removed its file.
    assert.equal(await guest('ls -a /home/user | grep vmhub- || true'), '', 'no temporary file is left');
  });

  it('server 2 on the same store: the killed server\'s job answers JOB_LOST; an unknown id NOT_FOUND; a completed put is whole', async (t) => {
    for (const until = Date.now() + 10_000; !gone(killedPid);) {
      assert.ok(Date.now() < until, `server ${killedPid} still exists`);
      await sleep(50);
    }
    s = await connect(box);
    const lost = await s.call('vm_exec', { lease_id: lease, job });
    assert.equal(lost.isError, true, JSON.stringify(lost.structuredContent));
    assert.equal(lost.structuredContent.code, 'JOB_LOST', lost.structuredContent.message);
    assert.equal(lost.structuredContent.retryable, false);
    assert.match(lost.structuredContent.message, new RegExp(`started at \\S+ by vmhub server process ${killedPid} on \\S+, which has since ended`));
    assert.equal(lost.structuredContent.details.server_running, false);
    assert.match(lost.structuredContent.hint, /vm_get_file/);
    t.diagnostic(`JOB_LOST: ${lost.structuredContent.message}`);
    t.diagnostic(`the killed server's "sleep 600" in the guest: ${(await guest("grep -l 'sleep 60[0]' /proc/[0-9]*/cmdline 2>/dev/null | wc -l")).trim()} process(es) left`);

    const unknown = await s.call('vm_exec', { lease_id: lease, job: `job-${randomUUID()}` });
    assert.equal(unknown.structuredContent.code, 'NOT_FOUND', 'an id no server gave is still NOT_FOUND');

    // This server's own jobs still run and answer.
    const mine = (await s.call('vm_exec', { lease_id: lease, command: ['echo', 'from server 2'], detach: true })).structuredContent.job as string;
    let r;
    for (const until = Date.now() + 15_000; (r = await s.call('vm_exec', { lease_id: lease, job: mine })).structuredContent.running;) { assert.ok(Date.now() < until); await sleep(200); }
    assert.equal(r.structuredContent.stdout, 'from server 2\n');

    const data = randomBytes(30 * 1024 * 1024);
    const put = await s.call('vm_put_file', { lease_id: lease, path: FILE, content_base64: data.toString('base64') });
    assert.equal(put.isError, undefined, JSON.stringify(put.structuredContent));
    assert.equal((await guest(`sha256sum ${FILE}`)).split(' ')[0], sha(data), 'the completed put is whole');
    assert.equal(put.structuredContent.sha256, sha(data));
  });
});
