import assert from 'node:assert/strict';
import { test } from 'node:test';
import { qemuArgv } from './qemu-argv.ts';
import { templateOptions } from './options.ts';
import { createRuntime } from './qemu-runtime.ts';
import { savedStateOff } from './qemu-saved-state.ts';
import { guestPorts } from './qemu-ssh.ts';
import { forwardsNeedTcp } from './qemu-status.ts';

const template = { id: 't', provider: 'qemu', adapter: 'console', os: 'linux', golden: '/g/vmlinuz', resources: { cpus: 2, memory_mb: 300 } };

test('qemu: argv carries the identity, devices, resources and no network by default', () => {
  const argv = qemuArgv({ identity: 'vmhub-x-1', dir: '/s/vmhub-x-1', template, options: templateOptions({ initrd: '/g/initrd', append: 'console=ttyS0' }), accel: 'tcg', machine: 'q35', defaultMemoryMb: 512, kernel: '/g/vmlinuz' });
  const after = (flag: string) => argv[argv.indexOf(flag) + 1];
  assert.equal(after('-name'), 'vmhub-x-1');
  assert.equal(after('-m'), '300');
  assert.equal(after('-smp'), '2');
  assert.equal(after('-nic'), 'none');
  assert.equal(after('-display'), 'none');
  assert.equal(after('-vga'), 'std');
  assert.equal(after('-machine'), 'q35,accel=tcg');
  assert.deepEqual(argv.filter((_, i) => argv[i - 1] === '-qmp'), ['unix:/s/vmhub-x-1/qmp.sock,server=on,wait=off', 'unix:/s/vmhub-x-1/console.sock,server=on,wait=off'], 'the provider\'s monitor and the console\'s');
  assert.equal(after('-serial'), 'file:/s/vmhub-x-1/serial.log');
  assert.deepEqual(argv.filter((_, i) => argv[i - 1] === '-device'), ['qemu-xhci', 'usb-tablet', 'usb-kbd']);
  assert.equal(after('-initrd'), '/g/initrd');
  assert.ok(!argv.includes('-chardev'), 'no guest agent socket unless asked');
  assert.equal(after('-vnc'), 'unix:/s/vmhub-x-1/vnc.sock,password=on', 'QEMU\'s VNC server on a unix socket, password set per console');
});

test('qemu: the VNC server without a password, or none at all', () => {
  const base = { identity: 'vmhub-x-3', dir: '/s/d', template, options: templateOptions({}), accel: 'tcg' as const, machine: 'q35', defaultMemoryMb: 512, kernel: '/g/vmlinuz' };
  const none = qemuArgv({ ...base, vnc: 'none' });
  assert.equal(none[none.indexOf('-vnc') + 1], 'unix:/s/d/vnc.sock');
  assert.ok(!qemuArgv({ ...base, vnc: 'off' }).includes('-vnc'));
});

test('qemu: network, guest agent and disk overlay when the template asks', () => {
  const argv = qemuArgv({ identity: 'vmhub-x-2', dir: '/s/d', template, options: templateOptions({ network: true, guest_agent: true }), accel: 'kvm', machine: 'q35', defaultMemoryMb: 512, disk: '/s/d/disk.qcow2' });
  assert.ok(argv.includes('user,model=virtio-net-pci'));
  assert.ok(argv.includes('virtserialport,chardev=qga0,name=org.qemu.guest_agent.0'));
  assert.ok(argv.some((a) => a.startsWith('socket,id=qga0,path=/s/d/qga.sock')));
  assert.ok(argv.includes('file=/s/d/disk.qcow2,if=virtio,format=qcow2,cache=unsafe'));
  assert.ok(!argv.includes('-kernel'));
  assert.equal(argv[argv.indexOf('-cpu') + 1], 'host');
});

test('qemu: forwarded guest ports become hostfwd on 127.0.0.1, restricted (no route out) unless network is on', () => {
  const base = { identity: 'vmhub-x-3', dir: '/s/d', template, accel: 'tcg' as const, machine: 'q35', defaultMemoryMb: 256 };
  const restricted = qemuArgv({ ...base, options: templateOptions({ forward_ports: [5555, 8000] }), forwards: { 5555: 41001, 8000: 41002 } });
  assert.equal(restricted[restricted.indexOf('-nic') + 1], 'user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:41001-:5555,hostfwd=tcp:127.0.0.1:41002-:8000');
  const open = qemuArgv({ ...base, options: templateOptions({ network: true, forward_ports: [22] }), forwards: { 22: 41003 } });
  assert.equal(open[open.indexOf('-nic') + 1], 'user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:41003-:22');
  const none = qemuArgv({ ...base, options: templateOptions({}) });
  assert.equal(none[none.indexOf('-nic') + 1], 'none');
  const noVnc = qemuArgv({ ...base, options: templateOptions({ vnc: 'off' }) });
  assert.ok(!noVnc.includes('-vnc'), 'template vnc: "off" turns QEMU\'s VNC server off');
});

test('qemu: a saved-state launch adds vmgenid (new GUID per process) and -incoming defer; a plain cold boot has neither', () => {
  const base = { identity: 'vmhub-x-4', dir: '/s/d', template, options: templateOptions({ guest_agent: true }), accel: 'tcg' as const, machine: 'q35', defaultMemoryMb: 256, kernel: '/g/vmlinuz' };
  const plain = qemuArgv(base);
  assert.ok(!plain.includes('vmgenid,guid=auto') && !plain.includes('-incoming'));
  const saver = qemuArgv({ ...base, vmgenid: true });
  assert.equal(saver[saver.indexOf('vmgenid,guid=auto') - 1], '-device');
  assert.ok(!saver.includes('-incoming'), 'the saving VM boots');
  const restored = qemuArgv({ ...base, vmgenid: true, incoming: true });
  assert.equal(restored[restored.indexOf('-incoming') + 1], 'defer');
  assert.deepEqual(restored.slice(0, -2), saver, 'same device set as the saving VM, plus -incoming');
});

test('qemu: an ssh template\'s seed is a read-only raw virtio disk; the ssh port joins the forwarded ports; such a template never uses a saved state', () => {
  const t = templateOptions({ forward_ports: [7000], ssh: { user: 'user' } });
  assert.deepEqual(guestPorts(t), [7000, 22]);
  assert.deepEqual(guestPorts(templateOptions({ forward_ports: [22], ssh: { user: 'u', port: 22 } })), [22], 'listed once');
  assert.deepEqual(guestPorts(templateOptions({ ssh: { user: 'u', port: 2222 } })), [2222]);
  const argv = qemuArgv({ identity: 'vmhub-x-5', dir: '/s/d', template, options: t, accel: 'tcg', machine: 'q35', defaultMemoryMb: 256, kernel: '/g/vmlinuz', seed: '/s/d/seed.iso', forwards: { 7000: 41004, 22: 41005 } });
  assert.equal(argv[argv.indexOf('file=/s/d/seed.iso,if=virtio,format=raw,readonly=on') - 1], '-drive');
  assert.match(argv[argv.indexOf('-nic') + 1]!, /,hostfwd=tcp:127\.0\.0\.1:41005-:22(,|$)/);
  assert.ok(!qemuArgv({ identity: 'vmhub-x-5', dir: '/s/d', template, options: t, accel: 'tcg', machine: 'q35', defaultMemoryMb: 256 }).some((a) => a.includes('seed.iso')));
  const rt = createRuntime({ state_dir: '/srv/q' }, { identityPrefix: 'vmhub-x-', log: () => {} });
  assert.match(savedStateOff(rt, { ...template, provider_options: { ssh: { user: 'user' } } }, { ...t, ready_marker: 'M' }) ?? '', /per-lease SSH/);
  assert.match(forwardsNeedTcp({ ...template, provider_options: { ssh: { user: 'user' } } }) ?? '', /forwards guest ports 22: .*"forward_tcp": true/);
  assert.equal(forwardsNeedTcp({ ...template, forward_tcp: true, provider_options: { ssh: { user: 'user' } } }), undefined);
});

test('qemu: a template that takes a workspace has the same slot in every launch — vmhub_ws= and an empty root port on q35 — and a cold boot plugs the disk into that port', () => {
  const base = { identity: 'vmhub-x-4', dir: '/s/d', template, accel: 'tcg' as const, defaultMemoryMb: 256, kernel: '/g/vmlinuz' };
  const options = templateOptions({ append: 'console=ttyS0', workspace_disk: true });
  const empty = qemuArgv({ ...base, options, machine: 'q35' });
  const devices = (argv: string[]) => argv.filter((_, i) => argv[i - 1] === '-device');
  assert.ok(devices(empty).includes('pcie-root-port,id=wsport,chassis=8'), 'the port a resumed lease\'s disk is hot-plugged into');
  assert.equal(empty[empty.indexOf('-append') + 1], 'console=ttyS0 vmhub_ws=/root');
  assert.ok(!empty.includes('-drive'), 'no disk without a workspace');
  const booted = qemuArgv({ ...base, options, machine: 'q35', workspaceDisk: '/w/disk.qcow2' });
  assert.ok(booted.includes('file=/w/disk.qcow2,if=none,id=ws0,format=qcow2'));
  assert.ok(devices(booted).includes('virtio-blk-pci,drive=ws0,serial=vmhub-ws,bus=wsport'));
  const i = booted.indexOf('-drive');
  assert.deepEqual([...booted.slice(0, i), ...booted.slice(i + 4)], empty, 'the rest of the command line is the same');
  const pc = qemuArgv({ ...base, options, machine: 'pc' });
  assert.ok(!devices(pc).some((d) => d.startsWith('pcie-root-port')), 'no PCIe root port on i440fx');
  const none = qemuArgv({ ...base, options: templateOptions({ append: 'console=ttyS0' }), machine: 'q35' });
  assert.ok(!devices(none).some((d) => d.startsWith('pcie-root-port')) && none[none.indexOf('-append') + 1] === 'console=ttyS0', 'a template without workspaces has no slot');
});
