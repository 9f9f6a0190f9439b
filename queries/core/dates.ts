// Date windows (docs/definitions.md "Clock, timezone and windows"): range presets, startDate/endDate,
// timezone, default interval and the bucket starts of a series. All calendar math happens in the
// request's IANA zone with luxon, so days are 23 or 25 hours long across DST changes.
import { LRUCache } from 'lru-cache'
import { DateTime, IANAZone } from 'luxon'
import { assertNever, type Issue } from './errors'

export const RANGES = [
  '30min',
  'lastHour',
  'last24h',
  'today',
  'yesterday',
  '7d',
  '30d',
  '3m',
  '6m',
  '12m',
  'monthToDate',
  'lastMonth',
  'yearToDate',
  'lastYear',
  'custom',
] as const
export type Range = (typeof RANGES)[number]

export const INTERVALS = ['minute', 'hour', 'day', 'week', 'month'] as const
export type Interval = (typeof INTERVALS)[number]

export interface Window {
  start: Date
  end: Date
}

export interface DateParams {
  range: Range
  startDate?: string
  endDate?: string
  timezone: string
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

const CANONICAL_ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])
const ZONE_SPELLING = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/

/** An IANA zone name as ClickHouse knows it: case-sensitive, canonical or a properly spelled alias. */
export function isValidTimezone(zone: string): boolean {
  return CANONICAL_ZONES.has(zone) || (ZONE_SPELLING.test(zone) && IANAZone.isValidZone(zone))
}

/** Presets that end now, lasting this long. */
const UNTIL_NOW = { '30min': { minutes: 30 }, lastHour: { hours: 1 }, last24h: { hours: 24 } } as const
/** Presets of whole days that end with today, going back this far (months back start at a day's start). */
const UNTIL_TOMORROW = { '7d': { days: 7 }, '30d': { days: 30 }, '3m': { months: 3 }, '6m': { months: 6 }, '12m': { months: 12 } } as const
/** Presets from the start of today, its month or its year to the end of today. */
const TO_DATE = { today: 'day', monthToDate: 'month', yearToDate: 'year' } as const
/** Presets of the whole day, month or year before today's: every other one, so that a new preset must be placed. */
const PREVIOUS: Record<
  Exclude<Range, 'custom' | keyof typeof UNTIL_NOW | keyof typeof UNTIL_TOMORROW | keyof typeof TO_DATE>,
  'day' | 'month' | 'year'
> = { yesterday: 'day', lastMonth: 'month', lastYear: 'year' }

function presetWindow(range: Exclude<Range, 'custom'>, now: DateTime): { start: DateTime; end: DateTime } {
  const today = now.startOf('day')
  const tomorrow = today.plus({ days: 1 })
  if (range in UNTIL_NOW) return { start: now.minus(UNTIL_NOW[range as keyof typeof UNTIL_NOW]), end: now }
  if (range in UNTIL_TOMORROW) {
    const back = UNTIL_TOMORROW[range as keyof typeof UNTIL_TOMORROW]
    const start = tomorrow.minus(back)
    return { start: 'months' in back ? start.startOf('day') : start, end: tomorrow }
  }
  if (range in TO_DATE) return { start: today.startOf(TO_DATE[range as keyof typeof TO_DATE]), end: tomorrow }
  const unit = PREVIOUS[range as keyof typeof PREVIOUS]
  const current = today.startOf(unit)
  return { start: current.minus({ [`${unit}s`]: 1 }), end: current }
}

/** The calendar years a request may name: ClickHouse's DateTime64 holds them, and years stay 4 digits. */
export const FIRST_YEAR = 1970
export const LAST_YEAR = 2199
const inYears = (date: DateTime) => date.year >= FIRST_YEAR && date.year <= LAST_YEAR
const BOUND_FORMAT = `YYYY-MM-DD or an ISO date-time with Z or an offset, from ${FIRST_YEAR}-01-01 to ${LAST_YEAR}-12-31`

function readBound(text: string, zone: string, isEnd: boolean): DateTime | undefined {
  if (DATE_ONLY.test(text)) {
    const day = DateTime.fromISO(text, { zone })
    if (!day.isValid || !inYears(day)) return undefined
    return isEnd ? day.plus({ days: 1 }).startOf('day') : day.startOf('day')
  }
  if (DATE_TIME.test(text)) {
    const instant = DateTime.fromISO(text, { setZone: true })
    return instant.isValid && inYears(instant) ? instant.setZone(zone) : undefined
  }
  return undefined
}

/**
 * Valid bounds read lately, by zone, end and text (each a few dozen characters at most). Reading one costs
 * luxon Intl calls, a large share of compiling a breakdown (docs/measurements.md, "Compiling"). A DateTime
 * never changes, and a bound's instant does not depend on the clock.
 */
const readBounds = new LRUCache<string, DateTime>({ max: 1_000 })

/**
 * A `startDate`/`endDate` value as an instant; a date-only end includes its whole day. Undefined when
 * malformed or when its calendar date (as written) is outside the years above.
 */
export function parseBound(text: string, zone: string, isEnd: boolean): DateTime | undefined {
  const key = JSON.stringify([zone, isEnd, text])
  const kept = readBounds.get(key)
  if (kept) return kept
  const bound = readBound(text, zone, isEnd)
  if (bound) readBounds.set(key, bound)
  return bound
}

/** The window of a request, or the issues that make it invalid. */
export function resolveWindow(params: DateParams, now: Date): { window?: Window; issues: Issue[] } {
  const zone = params.timezone
  const issues: Issue[] = []
  const clock = () => DateTime.fromJSDate(now, { zone })
  let start: DateTime | undefined
  let end: DateTime | undefined
  if (params.startDate !== undefined) {
    start = parseBound(params.startDate, zone, false)
    if (!start) issues.push({ path: ['startDate'], message: `"startDate" must be ${BOUND_FORMAT}, got "${params.startDate}"` })
    if (params.endDate !== undefined) {
      end = parseBound(params.endDate, zone, true)
      if (!end) issues.push({ path: ['endDate'], message: `"endDate" must be ${BOUND_FORMAT}, got "${params.endDate}"` })
    } else {
      end = clock()
    }
  } else if (params.endDate !== undefined) {
    issues.push({ path: ['endDate'], message: '"endDate" needs a "startDate"' })
  } else if (params.range === 'custom') {
    issues.push({ path: ['startDate'], message: 'range "custom" needs a "startDate"' })
  } else {
    ;({ start, end } = presetWindow(params.range, clock()))
  }
  if (issues.length || !start || !end) return { issues }
  if (start >= end)
    return { issues: [{ path: ['startDate'], message: `the window is empty: start ${start.toISO()} is not before end ${end.toISO()}` }] }
  return { window: { start: start.toJSDate(), end: end.toJSDate() }, issues }
}

/** A UTC day (no DST), in ms. */
export const DAY_MS = 24 * 60 * 60 * 1000

export function defaultInterval(window: Window): Interval {
  const length = window.end.getTime() - window.start.getTime()
  if (length <= 2 * DAY_MS) return 'hour'
  if (length <= 92 * DAY_MS) return 'day'
  if (length <= 366 * DAY_MS) return 'week'
  return 'month'
}

/** Plan step: a query without an `interval` gets its window's default. */
export function pickInterval<Q extends { window: Window; interval?: Interval }>(query: Q): Q & { interval: Interval } {
  return { ...query, interval: query.interval ?? defaultInterval(query.window) }
}

/** Start instants of every bucket from the one containing `start` up to `end`, in `zone`. */
export function bucketStarts(window: Window, interval: Interval, zone: string): Date[] {
  const end = DateTime.fromJSDate(window.end, { zone })
  const starts: Date[] = []
  for (
    let bucket = DateTime.fromJSDate(window.start, { zone }).startOf(interval);
    bucket < end;
    bucket = bucket.plus({ [`${interval}s`]: 1 }).startOf(interval)
  ) {
    starts.push(bucket.toJSDate())
  }
  return starts
}

/** A bucket of a series: its first instant, in epoch seconds as statements return it, and as answers print it. */
export interface Bucket {
  readonly start: Date
  readonly seconds: number
  readonly date: string
}

/**
 * The windows' buckets listed lately, at most this many buckets in all. Listing and printing them costs
 * luxon an Intl call per bucket and step, asked by the compiler and then by the shaping, and again by every
 * request for the same window.
 */
const LISTED_BUCKETS = 50_000
const listed = new LRUCache<string, readonly Bucket[]>({
  maxSize: LISTED_BUCKETS,
  sizeCalculation: (buckets) => Math.max(1, buckets.length),
})

/** Every bucket of a window (as `bucketStarts`), kept for the next request for the same window. */
export function buckets(window: Window, interval: Interval, zone: string): readonly Bucket[] {
  const key = `${window.start.getTime()}|${window.end.getTime()}|${interval}|${zone}`
  let found = listed.get(key)
  if (!found) {
    found = Object.freeze(
      bucketStarts(window, interval, zone).map((start) =>
        Object.freeze({ start, seconds: Math.floor(start.getTime() / 1000), date: formatInstant(start, zone) }),
      ),
    )
    listed.set(key, found)
  }
  return found
}

export const HOUR_MS = 3_600_000
/** Whether an instant falls on a whole multiple of `ms` since the epoch (a whole UTC hour, quarter hour, ...). */
export const onMultipleOf = (instant: Date, ms: number) => instant.getTime() % ms === 0
const onHour = (instant: Date) => onMultipleOf(instant, HOUR_MS)

/** Whether a window's start and end both fall on whole multiples of `ms` (see `onMultipleOf`). */
export const boundsOnMultipleOf = (window: Window, ms: number): boolean => onMultipleOf(window.start, ms) && onMultipleOf(window.end, ms)

/**
 * Whether a window's bounds and every one of its buckets' starts fall on whole hours (UTC): then an event
 * lies in the window, and in a bucket, exactly when the start of its hour does, so the window may be read
 * from hourly sums. False at the first bound inside an hour (every minute bucket but the first).
 */
export function boundsOnWholeHours(window: Window, interval: Interval, zone: string): boolean {
  return boundsOnMultipleOf(window, HOUR_MS) && buckets(window, interval, zone).every((bucket) => onHour(bucket.start))
}

/**
 * How many buckets `bucketStarts` would list, by arithmetic: the count is known (and capped) before any
 * bucket is listed, whatever the window.
 */
export function bucketCount(window: Window, interval: Interval, zone: string): number {
  const first = DateTime.fromJSDate(window.start, { zone }).startOf(interval)
  const last = DateTime.fromJSDate(new Date(window.end.getTime() - 1), { zone }).startOf(interval)
  switch (interval) {
    case 'minute':
      return Math.round((last.toMillis() - first.toMillis()) / 60_000) + 1
    case 'hour':
      // TRICKY: hours are counted in elapsed time, as they are listed: a repeated wall-clock hour at a DST
      // change is two buckets, a skipped one none. Zones whose offset moves by whole hours (all but a
      // few half-hour DST zones such as Australia/Lord_Howe) have every bucket exactly one hour long.
      return Math.round((last.toMillis() - first.toMillis()) / 3_600_000) + 1
    case 'day':
      return calendarDays(first, last) + 1
    case 'week':
      return calendarDays(first, last) / 7 + 1
    case 'month':
      return (last.year - first.year) * 12 + last.month - first.month + 1
    default:
      return assertNever(interval)
  }
}

/** Days between two wall-clock dates, whatever the length of each day. */
const calendarDays = (from: DateTime, to: DateTime) =>
  Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / DAY_MS)

/** ISO 8601 with milliseconds and the zone's offset at that instant, never `Z`. */
export function formatInstant(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ")
}

export interface RequestDates {
  range: Range
  startDate?: string
  endDate?: string
  timezone?: string
}

/**
 * A request's zone and window: the `timezone` parameter or the project's zone, and the window of its
 * date parameters. Their problems are added to `issues` (those already there for the date parameters,
 * from the schema, are not repeated); the window is undefined when anything is wrong.
 */
export function requestWindow(
  params: RequestDates,
  { projectZone, now, issues }: { projectZone: string; now: Date; issues: Issue[] },
): { timezone: string; window?: Window } {
  const timezone = params.timezone ?? projectZone
  if (params.timezone !== undefined && !isValidTimezone(params.timezone)) {
    issues.push({ path: ['timezone'], message: `"timezone" must be an IANA time zone such as Europe/Berlin, got "${params.timezone}"` })
  }
  if (issues.some((issue) => ['startDate', 'endDate', 'range', 'timezone'].includes(String(issue.path[0])))) return { timezone }
  const { window, issues: dateIssues } = resolveWindow(
    { range: params.range, startDate: params.startDate, endDate: params.endDate, timezone },
    now,
  )
  issues.push(...dateIssues)
  return { timezone, window }
}
