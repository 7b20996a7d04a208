import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHostPort, pickAddress } from './address.ts';

describe('proxmox: guest address', () => {
  it('skips loopback, link-local, docker and IPv6; takes the first usable IPv4', () => {
    assert.equal(pickAddress([
      { name: 'lo', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4' }] },
      { name: 'docker0', 'ip-addresses': [{ 'ip-address': '172.17.0.1', 'ip-address-type': 'ipv4' }] },
      { name: 'eth0', 'ip-addresses': [{ 'ip-address': 'fe80::1', 'ip-address-type': 'ipv6' }, { 'ip-address': '169.254.3.4', 'ip-address-type': 'ipv4' }, { 'ip-address': '10.1.2.3', 'ip-address-type': 'ipv4' }] },
    ]), '10.1.2.3');
    assert.equal(pickAddress([{ name: 'lo', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4' }] }]), undefined);
    assert.equal(pickAddress(undefined), undefined);
  });
  it('parses host:port overrides', () => {
    assert.deepEqual(parseHostPort('127.0.0.1:2222', 22), { host: '127.0.0.1', port: 2222 });
    assert.deepEqual(parseHostPort('guest', 22), { host: 'guest', port: 22 });
    assert.deepEqual(parseHostPort('[::1]:2', 22), { host: '::1', port: 2 });
  });
});
