// Rounding to 2 decimals (docs/definitions.md): rates and means of counts half up, exact for ratios of
// integers, 0 when there is nothing to divide by; other values (chart values, which may be negative)
// ties away from zero.

/** numerator / denominator rounded half up to 2 decimals; 0 for a zero denominator. */
export function ratio(numerator: number, denominator: number): number {
  if (denominator === 0) return 0
  // Exact in integers: round(n/d, 2) = floor((200n + d) / 2d) / 100 for n, d >= 0.
  const n = BigInt(Math.round(numerator))
  const d = BigInt(Math.round(denominator))
  return Number((200n * n + d) / (2n * d)) / 100
}

/** 100 x part / whole, rounded half up to 2 decimals; 0 for an empty whole. */
export function percent(part: number, whole: number): number {
  return ratio(100 * part, whole)
}

export function ratioOrNull(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : ratio(numerator, denominator)
}

/**
 * A value that is not a ratio of integers (a chart's sum, mean or change), to 2 decimals, ties away from
 * zero; never -0.
 */
export function round2(value: number): number {
  return (Math.sign(value) * Math.floor(Math.abs(value) * 100 + 0.5)) / 100 || 0
}
