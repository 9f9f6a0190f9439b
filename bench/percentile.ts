// The nearest-rank percentile the bench modes print latencies by.

/** The `p`th percentile (0-100) of `values`, in any order: the smallest value at or above p% of them; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN
}
