// Which questions are heavy: those that read more than two months of one series' events (the window, the
// previous window of a chart with `previous`, times a chart's series). A heavy question's statement runs on
// the heavy lane, beside the light ones at a low priority (server/priorities.ts), so a client asking a light
// question waits behind at most a light statement already running, never behind a year-long one
// (docs/design/scheduling.md, "Heavy questions run beside the light ones").
import { DAY_MS, type Window } from '../core/dates'
import type { AnyResource, Lane } from '../core/pipeline'

/** Days of events times series a light question may read: the dashboard's 30-day questions are light. */
export const LIGHT_READ_DAYS = 62

/** What a planned query says about what it reads; the fields a resource's query may have. */
interface Reads {
  window?: Window
  previousWindow?: Window
  items?: readonly unknown[]
}

const daysOf = (window: Window | undefined): number => (window ? Math.round((window.end.getTime() - window.start.getTime()) / DAY_MS) : 0)

/** Days of events the planned query reads, times its series (a chart's items; one otherwise). */
export function readDays(query: unknown): number {
  const reads = query as Reads
  return (daysOf(reads.window) + daysOf(reads.previousWindow)) * Math.max(1, reads.items?.length ?? 1)
}

/** The lane of a question's statement: the resource's own, else heavy past LIGHT_READ_DAYS, else data. */
export function laneOf(resource: AnyResource, query: unknown): Lane {
  return resource.lane ?? (readDays(query) > LIGHT_READ_DAYS ? 'heavy' : 'data')
}
