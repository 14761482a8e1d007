import ipaddr from 'ipaddr.js';

/** IPv6 ranges that carry an IPv4 address, and where: public when that address is. */
const EMBEDDED_IPV4 = {
  // RFC 3056: 2002:AABB:CCDD::/48 for the IPv4 address AA.BB.CC.DD.
  '6to4': (parts: number[]) => [parts[1]!, parts[2]!],
  // RFC 6052's well-known NAT64 prefix 64:ff9b::/96 (DNS64 answers for IPv4-only hosts); the
  // local-use 64:ff9b:1::/48 translates to private networks and stays refused.
  rfc6052: (parts: number[]) => (parts[2] === 0 ? [parts[6]!, parts[7]!] : null),
} as const;

/** ::/96, the IPv4-compatible addresses (:: and ::1 are in it, already refused as such). */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

function ipv4Of(words: [number, number] | number[] | null): ipaddr.IPv4 | null {
  if (words === null) return null;
  const [high, low] = words as [number, number];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Why `address` (an IPv4 or IPv6 literal, without brackets) may not receive webhooks, or null
 * when it is a public unicast address. IPv4-mapped IPv6 addresses are judged as the IPv4 address
 * they carry; every special-purpose range of ipaddr.js (loopback, private, link-local with the
 * 169.254.169.254 metadata service, unique-local, carrier-grade NAT, unspecified, broadcast,
 * multicast, reserved, documentation, benchmarking, Teredo, …) is refused, except 6to4 and NAT64
 * addresses whose embedded IPv4 address is itself public. So is all of ::/96, the deprecated
 * IPv4-compatible addresses (RFC 4291 2.5.5.1: `::7f00:1` is 127.0.0.1 to some stacks), which
 * ipaddr.js counts as unicast.
 */
export function addressProblem(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address.replace(/%.*$/, ''));
  } catch {
    return `address ${address} is not an IP address`;
  }
  // An IPv4-mapped address is named as the IPv4 address it is.
  const refused = `address ${parsed.toString()} is not public`;
  if (parsed.kind() === 'ipv4') return (parsed as ipaddr.IPv4).range() === 'unicast' ? null : refused;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(IPV4_COMPATIBLE)) return refused;
  const range = v6.range();
  if (range === 'unicast') return null;
  if (range === '6to4' || range === 'rfc6052') {
    const embedded = ipv4Of(EMBEDDED_IPV4[range](v6.parts));
    return embedded !== null && embedded.range() === 'unicast' ? null : refused;
  }
  return refused;
}
