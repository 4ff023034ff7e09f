// IPv4 CIDR arithmetic for the simulator: slicing the pod CIDR into per-node ranges and handing out
// addresses from a range, the way k3s gives each node a /24 of 10.42.0.0/16.

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

/** Hands out the addresses of a range in order, skipping ones in use; frees them again. */
export class IpPool {
  private readonly used = new Set<number>();
  private next = 1;
  private readonly size: number;

  constructor(
    private readonly range: Ipv4Cidr,
    reserved: string[] = [],
  ) {
    this.size = 2 ** (32 - range.prefix);
    for (const ip of reserved) this.reserve(ip);
  }

  /** Marks an address taken (e.g. one a client asked for); false when it is outside the range or taken. */
  reserve(ip: string): boolean {
    let n: number;
    try {
      n = parseIp(ip);
    } catch {
      return false;
    }
    const offset = n - this.range.base;
    if (offset < 1 || offset >= this.size - 1 || this.used.has(offset)) return false;
    this.used.add(offset);
    return true;
  }

  allocate(): string | undefined {
    for (let tries = 0; tries < this.size - 2; tries++) {
      const offset = this.next;
      this.next = this.next + 1 >= this.size - 1 ? 1 : this.next + 1;
      if (!this.used.has(offset)) {
        this.used.add(offset);
        return formatIp((this.range.base + offset) >>> 0);
      }
    }
    return undefined;
  }

  release(ip: string): void {
    this.used.delete(parseIp(ip) - this.range.base);
  }
}
