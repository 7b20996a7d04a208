import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSimulator } from '../test/helpers/simulator.ts';

const A = '/nodes/pve1/qemu/200/agent';

describe('pve-simulator: guest agent', () => {
  const pve = useSimulator({
    tls: false,
    vms: [{ vmid: 200, name: 'vm', status: 'running' }, { vmid: 201, name: 'noagent', agent: false, status: 'running' }],
    guest: { agentDelayMs: 0 },
  });

  it('refuses with the three preconditions', async () => {
    assert.equal((await pve.api.post('/nodes/pve1/qemu/201/agent/ping')).reason, 'No QEMU guest agent configured');
    pve.sim.state.setGuest(200, { agentDelayMs: 60_000 });
    assert.equal((await pve.api.post(`${A}/ping`)).reason, 'QEMU guest agent is not running');
    pve.sim.state.setGuest(200, { agentDelayMs: 0 });
    assert.equal((await pve.api.post(`${A}/ping`)).status, 200);
  });

  it('reports a running process until it exits, and kill ends it with a signal', async () => {
    const slow = await pve.api.post(`${A}/exec`, { command: ['sleep', '30'] });
    const pid = slow.body.data.pid;
    assert.deepEqual((await pve.api.get(`${A}/exec-status`, { pid })).body.data, { exited: 0 });
    await pve.api.post(`${A}/exec`, { command: ['kill', '-KILL', String(pid)] });
    assert.deepEqual((await pve.api.get(`${A}/exec-status`, { pid })).body.data, { exited: 1, signal: 9 });
  });

  it('takes a single command value as a one-element argv and feeds input-data to stdin', async () => {
    const one = await pve.api.post(`${A}/exec`, { command: 'whoami' });
    assert.equal((await pve.api.get(`${A}/exec-status`, { pid: one.body.data.pid })).body.data['out-data'], 'root\n');
    const cat = await pve.api.post(`${A}/exec`, { command: ['cat'], 'input-data': 'piped\n' });
    assert.equal((await pve.api.get(`${A}/exec-status`, { pid: cat.body.data.pid })).body.data['out-data'], 'piped\n');
    const fail = await pve.api.post(`${A}/exec`, { command: ['cat', '/missing'] });
    const st = (await pve.api.get(`${A}/exec-status`, { pid: fail.body.data.pid })).body.data;
    assert.equal(st.exitcode, 1);
    assert.match(st['err-data'], /No such file or directory/);
  });

  it('writes in chunks within the 61440-char limit and joins them in the guest', async () => {
    const data = Buffer.alloc(100_000, 7);
    const tooBig = await pve.api.post(`${A}/file-write`, { file: '/x', content: data.toString('base64'), encode: 0 });
    assert.equal(tooBig.status, 400);
    assert.equal(tooBig.body.errors.content, 'value may only be 61440 characters long');
    const parts: string[] = [];
    for (let off = 0, i = 0; off < data.length; off += 45_000, i++) {
      const part = `/srv/f.part-${i}`;
      const w = await pve.api.post(`${A}/file-write`, { file: part, content: data.subarray(off, off + 45_000).toString('base64'), encode: 0 });
      assert.equal(w.status, 200);
      parts.push(part);
    }
    const join = await pve.api.post(`${A}/exec`, { command: ['sh', '-c', 'out="$1"; shift; cat -- "$@" > "$out" && rm -f -- "$@"', 'sh', '/srv/f', ...parts] });
    const st = (await pve.api.get(`${A}/exec-status`, { pid: join.body.data.pid })).body.data;
    assert.equal(st.exitcode, 0);
    assert.deepEqual(pve.sim.state.readGuestFile(200, '/srv/f'), data);
    assert.equal(pve.sim.state.readGuestFile(200, '/srv/f.part-0'), undefined);
  });

  it('reads with decode=0 as per-MiB base64 segments and caps at count', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024 + 10, 1);
    pve.sim.state.writeGuestFile(200, '/big', big);
    const r = await pve.api.get(`${A}/file-read`, { file: '/big', decode: 0 });
    const content: string = r.body.data.content;
    assert.equal(content.length, 2 * 1398104 + Buffer.alloc(10).toString('base64').length);
    assert.ok(content.slice(0, 1398104).endsWith('='), 'each full MiB segment ends in =');
    assert.equal(r.body.data['bytes-read'], big.length);
    assert.equal(r.body.data.truncated, undefined);
    const part = await pve.api.get(`${A}/file-read`, { file: '/big', decode: 0, count: 1024 * 1024 });
    assert.equal(part.body.data.truncated, 1);
    const missing = await pve.api.get(`${A}/file-read`, { file: '/nope' });
    assert.equal(missing.reason, "Agent error: Failed to open file '/nope': No such file or directory");
    assert.deepEqual(pve.sim.violations, []);
  });

  it('runs exec as root unless runuser says otherwise; rights and owners hold across exec and the file API', async () => {
    pve.sim.state.addGuestDir(200, '/home/vmhub', 'vmhub');
    pve.sim.state.writeGuestFile(200, '/etc/shadow', 'root:*:1:0:99999:7:::\n');
    const wait = async (command: string[], input?: string) => {
      const { pid } = (await pve.api.post(`${A}/exec`, { command, ...(input === undefined ? {} : { 'input-data': input }) })).body.data;
      return (await pve.api.get(`${A}/exec-status`, { pid })).body.data;
    };
    assert.equal((await wait(['runuser', '-u', 'vmhub', '--', 'whoami']))['out-data'], 'vmhub\n');
    assert.equal((await wait(['runuser', '-u', 'vmhub', '--', 'sh', '-c', 'cat > "$1"', 'sh', '/home/vmhub/mine'], 'mine')).exitcode, 0);
    assert.equal(pve.sim.state.guestFileOwner(200, '/home/vmhub/mine'), 'vmhub');
    const denied = await wait(['runuser', '-u', 'vmhub', '--', 'cat', '/etc/shadow']);
    assert.deepEqual([denied.exitcode, denied['err-data']], [1, "cat: '/etc/shadow': Permission denied\n"]);
    const w = await pve.api.post(`${A}/file-write`, { file: '/home/vmhub/by-agent', content: 'x' });
    assert.equal(w.status, 200);
    assert.equal(pve.sim.state.guestFileOwner(200, '/home/vmhub/by-agent'), 'root', 'the agent itself writes as root');
    assert.equal((await pve.api.post(`${A}/file-write`, { file: '/home/vmhub', content: 'x' })).reason, "Agent error: Failed to open file '/home/vmhub': Is a directory");
    assert.equal((await pve.api.get(`${A}/file-read`, { file: '/tmp' })).reason, "Agent error: Failed to open file '/tmp': Is a directory");
    assert.deepEqual(pve.sim.violations, []);
  });
});
