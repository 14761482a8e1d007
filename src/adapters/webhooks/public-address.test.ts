import { describe, expect, it } from 'vitest';
import { addressProblem } from './public-address.js';

describe('addressProblem', () => {
  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b::808:808',
  ])('answers null for the public address %s', (address) => {
    expect(addressProblem(address)).toBeNull();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local: the cloud metadata service'],
    ['fe80::1', 'IPv6 link-local'],
    ['fd00:ec2::254', 'unique-local (the AWS metadata service over IPv6)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'IPv6 unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'IPv6 multicast'],
    ['192.0.2.1', 'documentation'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['2001::1', 'Teredo'],
    ['fec0::1', 'deprecated site-local'],
  ])('refuses %s (%s)', (address) => {
    expect(addressProblem(address)).toBe(`address ${address} is not public`);
  });

  it('judges an IPv4-mapped IPv6 address as the IPv4 address it carries, and names it so', () => {
    expect(addressProblem('::ffff:127.0.0.1')).toBe('address 127.0.0.1 is not public');
    expect(addressProblem('::ffff:7f00:1')).toBe('address 127.0.0.1 is not public');
    expect(addressProblem('::ffff:a9fe:a9fe')).toBe('address 169.254.169.254 is not public');
  });

  it('refuses 6to4 and NAT64 addresses that carry a private IPv4 address, and the local-use NAT64 prefix', () => {
    expect(addressProblem('2002:a00:1::1')).toBe('address 2002:a00:1::1 is not public');
    expect(addressProblem('2002:7f00:1::')).toBe('address 2002:7f00:1:: is not public');
    expect(addressProblem('64:ff9b::a9fe:a9fe')).toBe('address 64:ff9b::a9fe:a9fe is not public');
    expect(addressProblem('64:ff9b:1::808:808')).toBe('address 64:ff9b:1::808:808 is not public');
  });

  it('refuses every IPv4-compatible IPv6 address (::/96), which some stacks send to the IPv4 address', () => {
    expect(addressProblem('::7f00:1')).toBe('address ::7f00:1 is not public');
    expect(addressProblem('::a00:1')).toBe('address ::a00:1 is not public');
    expect(addressProblem('::808:808')).toBe('address ::808:808 is not public');
  });

  it('refuses a zone-scoped link-local address and says when a string is no address', () => {
    expect(addressProblem('fe80::1%eth0')).toBe('address fe80::1 is not public');
    expect(addressProblem('example.com')).toBe('address example.com is not an IP address');
  });
});
