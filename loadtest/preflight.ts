// Before a run: whether the gateway's per-client rate limit, as it advertises it, would answer most of
// the run's requests with 429. Such a run measures the limit, not the gateway, and its fast 429s pull
// the percentiles down; the kit refuses it up front and says how to raise the limit.
import type { RouteStats } from './runner'

/** The requests one client may send per window, from `RateLimit-Policy: 100;w=10` (IETF draft 7, as express-rate-limit sends it). */
export interface RateLimitPolicy {
  limit: number
  windowSeconds: number
}

export function parseRateLimitPolicy(header: string | null): RateLimitPolicy | undefined {
  const match = header && /^\s*(\d+)\s*;\s*w\s*=\s*(\d+)/.exec(header)
  if (!match) return undefined
  return { limit: Number(match[1]), windowSeconds: Number(match[2]) }
}

/**
 * Requests one closed-loop connection may send a second: a 429 or a cached answer comes back in a few
 * milliseconds, so a connection may send about one every 10 ms.
 */
const CLOSED_LOOP_PER_CONNECTION = 100

/** Why the run would be answered mostly with 429, or undefined when the limit leaves it room. */
export function rateLimitProblem(policy: RateLimitPolicy, run: { connections: number; rate?: number }): string | undefined {
  const perSecond = run.rate ?? run.connections * CLOSED_LOOP_PER_CONNECTION
  const needed = Math.ceil(perSecond * policy.windowSeconds)
  if (needed <= policy.limit) return undefined
  const sending = run.rate
    ? `--rate ${run.rate}`
    : `${run.connections} closed-loop connections, each sending its next request as soon as an answer comes`
  return (
    `the gateway allows this client ${policy.limit} requests per ${policy.windowSeconds} s (its RateLimit-Policy header), ` +
    `and this run (${sending}) may send up to ${needed} in that time: most answers would be fast 429s that say nothing of its speed. ` +
    `Restart the gateway with QUARRY_RATE_LIMIT=${needed} or more (docs/load-testing.md), or pass --rate ${Math.floor(policy.limit / policy.windowSeconds)} or less.`
  )
}

/** The rate limit the gateway advertises to this client, read from one cheap authenticated answer. */
export async function readRateLimit(url: string, headers: Record<string, string>, projectId: string): Promise<RateLimitPolicy | undefined> {
  const res = await fetch(`${url}/insights/${encodeURIComponent(projectId)}/live`, { headers })
  await res.arrayBuffer()
  return parseRateLimitPolicy(res.headers.get('ratelimit-policy'))
}

/** Why a finished run says little of the gateway (most of its answers were 429), or undefined. */
export function mostlyRefused(overall: RouteStats): string | undefined {
  const limited = overall.statuses['429'] ?? 0
  if (!overall.requests || limited * 2 <= overall.requests) return undefined
  return `${Math.round((100 * limited) / overall.requests)}% of the answers were 429 (the per-client rate limit or concurrency cap); raise QUARRY_RATE_LIMIT and QUARRY_MAX_CONCURRENT_QUERIES for a load test (docs/load-testing.md)`
}
