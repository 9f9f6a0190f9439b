// What a scenario is: a named, versioned, weighted mix of gateway requests whose parameters are drawn per
// request (a window inside the target's days, a time zone, filters); and the helpers the scenarios share.
import type { Target } from '../discover'
import type { Random } from '../random'
import type { Answer, Connection, RequestSpec } from '../runner'

/** One kind of request in a mix: drawn with a chance proportional to `weight`, its parameters by `build`. */
export interface RequestKind {
  route: string
  weight: number
  build(target: Target, random: Random): RequestSpec
}

export interface Scenario {
  name: string
  /** Raised whenever the mix changes, so that reports of different versions are not compared blindly. */
  version: number
  description: string
  kinds: RequestKind[]
  /** A request that continues the previous one (the next page of a keyset walk), if any. */
  follow?(previous: Answer, target: Target): RequestSpec | undefined
}

/** The requests of one connection: a continuation when the previous answer calls for one, else a new draw. */
export function connectionOf(scenario: Scenario, target: Target, random: Random): Connection {
  return (previous) => (previous && scenario.follow?.(previous, target)) || random.weighted(scenario.kinds).build(target, random)
}

/** The same mix with `Cache-Control: no-cache` on every request: the engine answers, never the result cache. */
export function cold(scenario: Scenario): Scenario {
  const uncached = (spec: RequestSpec): RequestSpec => ({ ...spec, headers: { ...spec.headers, 'cache-control': 'no-cache' } })
  return {
    name: `${scenario.name}-cold`,
    version: scenario.version,
    description: `${scenario.description} Every request carries Cache-Control: no-cache.`,
    kinds: scenario.kinds.map((kind) => ({ ...kind, build: (target, random) => uncached(kind.build(target, random)) })),
    follow:
      scenario.follow &&
      ((previous, target) => {
        const next = scenario.follow?.(previous, target)
        return next && uncached(next)
      }),
  }
}

const DAY_MS = 86_400_000
const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)

/**
 * A window of whole days inside the target's span, its length from `lengths`. It ends on the target's last
 * day with the chance `latestShare` (most viewers look at "the last 7 days"), else on a day drawn uniformly.
 */
export function drawWindow(
  target: Target,
  random: Random,
  lengths: readonly number[],
  latestShare = 0,
): { startDate: string; endDate: string } {
  const span = Math.round((Date.parse(target.lastDay) - Date.parse(target.firstDay)) / DAY_MS) + 1
  const endDate = random.next() < latestShare ? target.lastDay : addDays(target.firstDay, random.below(span))
  const start = addDays(endDate, 1 - random.pick(lengths))
  // biome-ignore lint/complexity/useMathMinMax: dates compared as YYYY-MM-DD text, which Math.max would make NaN
  return { startDate: start < target.firstDay ? target.firstDay : start, endDate }
}

/** Time zones a dashboard's viewers ask in; `undefined` keeps the project's own. */
const TIME_ZONES = [undefined, undefined, 'UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'] as const

/** `startDate`, `endDate` and maybe `timezone` of a drawn window (as `drawWindow`), as query-string pairs. */
export function windowQuery(target: Target, random: Random, lengths: readonly number[], latestShare = 0): string {
  const { startDate, endDate } = drawWindow(target, random, lengths, latestShare)
  const zone = random.pick(TIME_ZONES)
  return `startDate=${startDate}&endDate=${endDate}${zone ? `&timezone=${encodeURIComponent(zone)}` : ''}`
}

export const json = (value: unknown) => encodeURIComponent(JSON.stringify(value))
