// The gateway's own view of a load: its Prometheus listener scraped before and after, and the difference
// read as HTTP time against engine time, queue wait and the result cache's hit rate.

/** Sample values by series (`name{labels}` as the exposition format writes it). */
export type Scrape = Map<string, number>

/** Reads the text exposition format: one `name{labels} value` per line, comments skipped. */
export function parseMetrics(text: string): Scrape {
  const samples: Scrape = new Map()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const split = line.lastIndexOf(' ')
    const value = Number(line.slice(split + 1))
    if (split > 0 && Number.isFinite(value)) samples.set(line.slice(0, split), value)
  }
  return samples
}

/** A scrape, or undefined when the listener cannot be reached (it is optional, and off with port 0). */
export async function scrape(url: string): Promise<Scrape | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) })
    return res.status === 200 ? parseMetrics(await res.text()) : undefined
  } catch {
    return undefined
  }
}

/** The total of every series of `name` whose labels include `having`, e.g. `result="hit"`. */
function total(samples: Scrape, name: string, having = ''): number {
  let sum = 0
  for (const [series, value] of samples) {
    const bare = series.indexOf('{') < 0 ? series : series.slice(0, series.indexOf('{'))
    if (bare === name && series.includes(having)) sum += value
  }
  return sum
}

export interface TimeShare {
  count: number
  seconds: number
  meanMs: number
}

/** What the gateway measured over the load (differences between two scrapes). */
export interface GatewayView {
  url: string
  http: TimeShare
  engine: TimeShare
  /** Absent when the gateway's scheduler reports no queue. */
  queueWait?: TimeShare
  cache: { hits: number; misses: number; hitRate: number | null }
}

function share(before: Scrape, after: Scrape, name: string): TimeShare {
  const count = total(after, `${name}_count`) - total(before, `${name}_count`)
  const seconds = total(after, `${name}_sum`) - total(before, `${name}_sum`)
  return { count, seconds, meanMs: count ? (seconds / count) * 1000 : 0 }
}

export function gatewayView(url: string, before: Scrape, after: Scrape): GatewayView {
  const hits = total(after, 'quarry_cache_lookups_total', 'result="hit"') - total(before, 'quarry_cache_lookups_total', 'result="hit"')
  const misses = total(after, 'quarry_cache_lookups_total', 'result="miss"') - total(before, 'quarry_cache_lookups_total', 'result="miss"')
  const queued = [...after.keys()].some((series) => series.startsWith('quarry_engine_queue_wait_seconds_count'))
  return {
    url,
    http: share(before, after, 'quarry_http_request_duration_seconds'),
    engine: share(before, after, 'quarry_statement_duration_seconds'),
    ...(queued ? { queueWait: share(before, after, 'quarry_engine_queue_wait_seconds') } : {}),
    cache: { hits, misses, hitRate: hits + misses ? hits / (hits + misses) : null },
  }
}
