// Rounding of rates and means (docs/definitions.md): half up to 2 decimals, exact for ratios of
// integers, 0 when there is nothing to divide by.

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
