import { describe, expect, it } from 'vitest';
import { loginNetwork } from './login-network.js';

describe('loginNetwork', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(loginNetwork('192.0.2.7')).toBe('192.0.2.7');
  });

  it('counts every address of one IPv6 /64 as that network, however it is written', () => {
    for (const address of [
      '2001:db8:0:1::1',
      '2001:DB8:0:1:ffff:ffff:ffff:ffff',
      '2001:0db8:0000:0001:0:0:0:2',
      '2001:db8:0:1:a::b%eth0',
    ]) {
      expect(loginNetwork(address), address).toBe('2001:db8:0:1::/64');
    }
    expect(loginNetwork('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(loginNetwork('::1')).toBe('0:0:0:0::/64');
    expect(loginNetwork('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(loginNetwork('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(loginNetwork('::ffff:c000:207')).toBe('192.0.2.7');
  });

  it('keeps what is not an address as it is, lowercased', () => {
    for (const text of ['unknown', 'not:an:address', '1::2::3', '1:2:3:4:5:6:7:8:9']) expect(loginNetwork(text)).toBe(text);
    expect(loginNetwork('Unknown')).toBe('unknown');
  });
});
