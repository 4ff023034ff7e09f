// IPv4 address and CIDR arithmetic, one implementation for the whole code base: pod CIDRs sliced into
// per-node /24s (as k3s does), host addresses of a range, Service cluster IPs.

export interface Ipv4Cidr {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
}

export function parseCidr(text: string): Ipv4Cidr {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not an IPv4 CIDR such as 10.42.0.0/16`);
  const octets = m.slice(1, 5).map(Number);
  if (octets.some((o) => o > 255)) throw new Error(`"${text}" has an octet above 255`);
  const prefix = Number(m[5]);
  if (prefix > 30) throw new Error(`"${text}" is too small: use a prefix of /30 or shorter`);
  const addr = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (addr & mask) >>> 0, prefix };
}

/** An IPv4 address as an unsigned 32-bit number. */
export function parseIp(text: string): number {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text.trim());
  if (!m || m.slice(1, 5).some((o) => Number(o) > 255)) throw new Error(`"${text}" is not an IPv4 address`);
  const [a, b, c, d] = m.slice(1, 5).map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

export function formatIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function formatCidr(c: Ipv4Cidr): string {
  return `${formatIp(c.base)}/${c.prefix}`;
}

/** The i-th (0-based) subnet of size /`prefix` inside `parent`; throws when it does not fit. */
export function subnet(parent: Ipv4Cidr, prefix: number, i: number): Ipv4Cidr {
  if (prefix < parent.prefix) throw new Error(`a /${prefix} does not fit in ${formatCidr(parent)}`);
  const count = 2 ** (prefix - parent.prefix);
  if (i >= count) throw new Error(`${formatCidr(parent)} has only ${count} /${prefix} subnets`);
  return { base: (parent.base + i * 2 ** (32 - prefix)) >>> 0, prefix };
}

/** The i-th host address (1-based: .1 is the first) of a range. */
export function hostAddress(c: Ipv4Cidr, i: number): string {
  const size = 2 ** (32 - c.prefix);
  if (i < 1 || i >= size - 1) throw new Error(`${formatCidr(c)} has no host number ${i}`);
  return formatIp((c.base + i) >>> 0);
}

/** parseIp without the throw: undefined for anything that is not a dotted quad. */
export function tryParseIp(text: string): number | undefined {
  try {
    return parseIp(text);
  } catch {
    return undefined;
  }
}
