/**
 * What the login throttle counts as one client: an IPv4 address as it is; an IPv6 address by its
 * /64 network (one subscriber's share, so that its 2^64 addresses count as one), as
 * `2001:db8:0:1::/64`; an IPv4-mapped IPv6 address as its IPv4 address. A zone (`%eth0`) is
 * dropped; anything else (e.g. `unknown`) is kept as it is, lowercased.
 */
export function loginNetwork(address: string): string {
  let text = address.trim().toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!text.includes(':')) return text;
  const groups = ipv6Groups(text);
  if (groups === null) return text;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address in text form, or null when it is not one. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...Array<number>(missing).fill(0), ...tail] : null;
}

/** `a:b:c`, its last piece a dotted quad when `last` allows one (two groups). */
function groupsOf(part: string, last: boolean): number[] | null {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (last && i === pieces.length - 1 && piece.includes('.')) {
      const octets = piece.split('.');
      if (octets.length !== 4 || !octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)) return null;
      const [a, b, c, d] = octets.map(Number) as [number, number, number, number];
      groups.push(a * 256 + b, c * 256 + d);
    } else if (/^[0-9a-f]{1,4}$/.test(piece)) {
      groups.push(parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return groups;
}
