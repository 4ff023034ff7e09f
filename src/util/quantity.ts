// Kubernetes resource quantities ("500m", "8Gi", "1e3"): parsed exactly into milli-units so node
// capacities can be summed, and printed back in the canonical form kube uses for the sum.

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/** The quantity in thousandths of its unit (rounded up, as kube rounds MilliValue), or undefined if malformed. */
export function parseMilli(text: string): bigint | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign, num, suffix, exp] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  const [whole, frac = ''] = num.split('.');
  // value = digits × 10^-frac.length × multiplier; in milli-units multiply by 1000 more.
  let digits = BigInt((whole || '0') + frac);
  let pow10 = 3 - frac.length;
  let pow2 = 0;
  if (suffix && suffix in BINARY) pow2 = BINARY[suffix]!;
  else if (suffix !== undefined) pow10 += DECIMAL[suffix]!;
  else if (exp !== undefined) pow10 += Number(exp);
  digits *= 2n ** BigInt(pow2);
  let value: bigint;
  if (pow10 >= 0) value = digits * 10n ** BigInt(pow10);
  else {
    const div = 10n ** BigInt(-pow10);
    value = (digits + div - 1n) / div;
  }
  return sign === '-' ? -value : value;
}

/** A CPU sum: whole cores when exact ("4"), else millicores ("3500m"). */
export function formatCpuMilli(milli: bigint): string {
  return milli % 1000n === 0n ? String(milli / 1000n) : `${milli}m`;
}

/** A byte count (from milli-bytes): the largest exact binary unit, like "16Gi" or "8148140Ki". */
export function formatBytesMilli(milli: bigint): string {
  const bytes = milli / 1000n;
  for (const [suffix, bits] of [
    ['Ei', 60n],
    ['Pi', 50n],
    ['Ti', 40n],
    ['Gi', 30n],
    ['Mi', 20n],
    ['Ki', 10n],
  ] as const) {
    const unit = 1n << bits;
    if (bytes !== 0n && bytes % unit === 0n) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}
