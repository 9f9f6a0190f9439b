// Reference model — exact arithmetic and ordering helpers.

/**
 * num / den rounded half up to 2 decimals, computed on integers (BigInt) so that no float error can
 * move a value across a rounding boundary. Requires num >= 0 and den > 0.
 * The result k/100 is the double nearest to the decimal k/100 (one correctly rounded division), i.e.
 * exactly what JSON.parse("x.yz") gives.
 */
export function ratioHalfUp2(num: bigint, den: bigint): number {
  if (den <= 0n) throw new Error('ratioHalfUp2: den must be > 0')
  if (num < 0n) throw new Error('ratioHalfUp2: num must be >= 0')
  // hundredths = floor(100*num/den + 1/2) = floor((200*num + den) / (2*den))
  const hundredths = (200n * num + den) / (2n * den)
  return Number(hundredths) / 100
}

/** 100 × part / whole, rounded half up to 2 decimals. */
export function percent2(part: number, whole: number): number {
  return ratioHalfUp2(100n * BigInt(part), BigInt(whole))
}

/** Mean of integer milliseconds, in seconds, rounded half up to 2 decimals. */
export function meanSeconds2(sumMs: number, count: number): number {
  return ratioHalfUp2(BigInt(sumMs), 1000n * BigInt(count))
}

/** Bytewise UTF-8 comparison (the empty string sorts first). */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

/**
 * Strict number grammar: optional sign, digits, optional fraction (a dot followed by digits),
 * optional exponent. No surrounding spaces; "" is not a number. Returns null when x is not a number.
 */
export function parseStrictNumber(x: string): number | null {
  if (!/^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(x)) return null
  return Number(x)
}
