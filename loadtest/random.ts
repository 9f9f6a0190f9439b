// A seeded random source, so that `--seed` replays the same requests in the same order on each connection.

export interface Random {
  /** A number in [0, 1). */
  next(): number
  /** An integer in [0, n). */
  below(n: number): number
  pick<T>(items: readonly T[]): T
  /** One of `items`, with a chance proportional to its weight. */
  weighted<T extends { weight: number }>(items: readonly T[]): T
}

/** mulberry32: 32 bits of state, full period, enough for drawing request parameters. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const below = (n: number) => Math.floor(next() * n)
  return {
    next,
    below,
    pick: (items) => items[below(items.length)],
    weighted(items) {
      let left = next() * items.reduce((total, item) => total + item.weight, 0)
      for (const item of items) if ((left -= item.weight) < 0) return item
      return items[items.length - 1]
    },
  }
}
