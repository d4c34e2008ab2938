/**
 * Kubernetes resource quantities (`resource.Quantity`) as exact byte counts:
 * `nodeDiskSize` and memory sizes arrive as `100Gi`, `1.5T`, `512M`, `1e9`
 * or a plain number, and flavor matching compares them without floating
 * point. Grammar (k8s.io/apimachinery/pkg/api/resource):
 * `<sign><digits>[.<digits>]<suffix>`, suffix one of the binary `Ki Mi Gi Ti
 * Pi Ei`, the decimal `n u m k M G T P E` (or none), or an exponent `e<n>` /
 * `E<n>`.
 */

/** A quantity that is not one: the message says what form was expected, the value is quoted (quantities are not secrets). */
export class QuantityError extends Error {
  override readonly name = "QuantityError";
}

const GIB = 1n << 30n;

const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: GIB,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

/** Decimal suffixes as powers of ten. */
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/** Beyond this a "quantity" is no size anyone means, and bigint arithmetic on it would be unbounded. */
const MAX_CHARS = 64;
const MAX_EXPONENT = 64;

const EXPECTED = "a Kubernetes quantity such as 100Gi, 512Mi, 1.5T or 1e9";

/**
 * The quantity in bytes (or units), rounded up to a whole number away from
 * zero as `Quantity.Value()` does: `100m` is 1.
 */
export function parseQuantity(quantity: string | number): bigint {
  const text = typeof quantity === "number" ? numberText(quantity) : quantity.trim();
  const match = text.length <= MAX_CHARS ? QUANTITY.exec(text) : null;
  const [, sign = "", whole = "", fraction = "", suffix, exponent] = match ?? [];
  if (match === null || (whole === "" && fraction === "")) throw new QuantityError(`${describe(quantity)} is not ${EXPECTED}`);
  const power = exponent === undefined ? (suffix === undefined ? 0 : (DECIMAL[suffix] ?? 0)) : Number.parseInt(exponent, 10);
  if (Math.abs(power) > MAX_EXPONENT) throw new QuantityError(`${describe(quantity)} has an exponent beyond ±${MAX_EXPONENT}`);
  const multiplier = suffix === undefined ? 1n : (BINARY[suffix] ?? 1n);
  // mantissa · 10^(power − fraction digits) · multiplier, kept as numerator/denominator.
  const mantissa = BigInt(`${whole}${fraction}` || "0") * multiplier;
  const scale = power - fraction.length;
  const magnitude = scale >= 0 ? mantissa * 10n ** BigInt(scale) : ceilDiv(mantissa, 10n ** BigInt(-scale));
  return sign === "-" ? -magnitude : magnitude;
}

/** Whole GiB, rounded up: the unit OTC sizes volumes in. */
export function toGiB(quantity: string | number): number {
  const bytes = parseQuantity(quantity);
  return Number(bytes >= 0n ? ceilDiv(bytes, GIB) : -ceilDiv(-bytes, GIB));
}

/** A byte count for people: the largest binary unit that divides it, e.g. `16Gi`, `1536Mi`, `1000`. */
export function formatBytes(bytes: bigint): string {
  for (const [suffix, size] of Object.entries(BINARY).reverse()) {
    if (bytes !== 0n && bytes % size === 0n) return `${bytes / size}${suffix}`;
  }
  return bytes.toString();
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

function numberText(value: number): string {
  // String(1e21) is "1e+21", which the grammar accepts; NaN and Infinity are not quantities.
  return Number.isFinite(value) ? String(value) : "NaN";
}

function describe(quantity: string | number): string {
  const text = String(quantity);
  return JSON.stringify(text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…` : text);
}
