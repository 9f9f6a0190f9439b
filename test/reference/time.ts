// Reference model — time-zone arithmetic built only on Intl.DateTimeFormat.
// No date library: every conversion between an instant (epoch ms, UTC) and a wall-clock time in a zone
// goes through formatToParts, so the model trusts only the ICU tz database bundled with Node.

/** A calendar date (month 1..12). */
export interface CivilDate {
  y: number
  m: number
  d: number
}

/** A wall-clock date-time in some zone (month 1..12, hour 0..23). */
export interface WallTime extends CivilDate {
  h: number
  mi: number
  s: number
  ms: number
}

const MS_MINUTE = 60_000
const MS_HOUR = 3_600_000
const MS_DAY = 86_400_000

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(tz, f)
  }
  return f
}

/**
 * A zone name is accepted when Intl knows it and it is written as a name (IANA style), not as a
 * numeric offset such as "+05:00".
 */
export function isValidTimeZone(tz: string): boolean {
  // Zone names are case-sensitive in ClickHouse: every path segment starts with a capital letter.
  if (!/^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/.test(tz)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

/** Epoch ms of a wall-clock time read as if it were UTC (works for any year, unlike Date.UTC(0..99)). */
export function wallToMs(w: WallTime): number {
  const dt = new Date(0)
  dt.setUTCFullYear(w.y, w.m - 1, w.d)
  dt.setUTCHours(w.h, w.mi, w.s, w.ms)
  return dt.getTime()
}

/** The wall-clock fields of an epoch-ms value read in UTC. */
export function msToWall(t: number): WallTime {
  const dt = new Date(t)
  return {
    y: dt.getUTCFullYear(),
    m: dt.getUTCMonth() + 1,
    d: dt.getUTCDate(),
    h: dt.getUTCHours(),
    mi: dt.getUTCMinutes(),
    s: dt.getUTCSeconds(),
    ms: dt.getUTCMilliseconds(),
  }
}

/** Wall-clock time in `tz` at instant `t`. */
export function localWall(tz: string, t: number): WallTime {
  const sec = Math.floor(t / 1000) * 1000
  const parts = formatterFor(tz).formatToParts(new Date(sec))
  const get = (type: string): string => {
    const p = parts.find((x) => x.type === type)
    if (!p) throw new Error(`Intl gave no ${type} part`)
    return p.value
  }
  let y = Number(get('year'))
  if (get('era') === 'BC' || get('era') === 'B') y = 1 - y
  return {
    y,
    m: Number(get('month')),
    d: Number(get('day')),
    h: Number(get('hour')),
    mi: Number(get('minute')),
    s: Number(get('second')),
    ms: t - sec,
  }
}

/** Offset of `tz` at instant `t`, in ms (wall clock minus UTC). */
export function offsetAt(tz: string, t: number): number {
  return wallToMs(localWall(tz, t)) - t
}

/**
 * The instant at which the wall clock in `tz` reads `w`.
 * - If that wall time happens twice (clocks turned back), the earlier instant.
 * - If it never happens (clocks turned forward over it), it is mapped forward to the first instant
 *   after the gap (the transition itself), i.e. the first instant whose wall time is later than `w`.
 */
export function wallToInstant(tz: string, w: WallTime): number {
  const W = wallToMs(w)
  const offsets = new Set<number>([offsetAt(tz, W - MS_DAY), offsetAt(tz, W), offsetAt(tz, W + MS_DAY)])
  const candidates: number[] = []
  for (const o of offsets) {
    const t = W - o
    if (offsetAt(tz, t) === o) candidates.push(t)
  }
  if (candidates.length > 0) return Math.min(...candidates)
  // Gap: find the smallest instant whose wall time is >= W by bisection.
  const wallOf = (t: number): number => t + offsetAt(tz, t)
  let lo = W - Math.max(...offsets) // wall(lo) < W
  let hi = W - Math.min(...offsets) // wall(hi) >= W
  if (!(wallOf(lo) < W && wallOf(hi) >= W)) throw new Error(`cannot place ${JSON.stringify(w)} in ${tz}`)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (wallOf(mid) >= W) hi = mid
    else lo = mid
  }
  return hi
}

/** Civil date arithmetic. */
export function addDays(c: CivilDate, n: number): CivilDate {
  const w = msToWall(wallToMs({ ...c, h: 0, mi: 0, s: 0, ms: 0 }) + n * MS_DAY)
  return { y: w.y, m: w.m, d: w.d }
}

export function daysInMonth(y: number, m: number): number {
  const next = m === 12 ? { y: y + 1, m: 1, d: 1 } : { y, m: m + 1, d: 1 }
  return addDays(next, -1).d
}

/** Add (or subtract) calendar months; the day is clamped to the last day of the target month. */
export function addMonths(c: CivilDate, n: number): CivilDate {
  const index = c.y * 12 + (c.m - 1) + n
  const y = Math.floor(index / 12)
  const m = index - y * 12 + 1
  return { y, m, d: Math.min(c.d, daysInMonth(y, m)) }
}

/** 0 = Monday ... 6 = Sunday. */
export function weekdayFromMonday(c: CivilDate): number {
  const sundayBased = new Date(wallToMs({ ...c, h: 0, mi: 0, s: 0, ms: 0 })).getUTCDay()
  return (sundayBased + 6) % 7
}

export function isValidCivilDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m)
}

const startOfDayCache = new Map<string, number>()

/** First instant of the calendar day `c` in `tz` (memoized: pure function of its arguments). */
export function startOfDay(tz: string, c: CivilDate): number {
  const key = `${tz} ${c.y}-${c.m}-${c.d}`
  let t = startOfDayCache.get(key)
  if (t === undefined) {
    t = wallToInstant(tz, { y: c.y, m: c.m, d: c.d, h: 0, mi: 0, s: 0, ms: 0 })
    startOfDayCache.set(key, t)
  }
  return t
}

export function localDate(tz: string, t: number): CivilDate {
  const w = localWall(tz, t)
  return { y: w.y, m: w.m, d: w.d }
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

/** `YYYY-MM-DDTHH:mm:ss.SSS±HH:MM` with the offset of `tz` at `t` (never `Z`). */
export function formatInstant(tz: string, t: number): string {
  const w = localWall(tz, t)
  const offMin = Math.trunc(offsetAt(tz, t) / MS_MINUTE)
  const sign = offMin < 0 ? '-' : '+'
  const abs = Math.abs(offMin)
  return (
    `${pad(w.y, 4)}-${pad(w.m, 2)}-${pad(w.d, 2)}T${pad(w.h, 2)}:${pad(w.mi, 2)}:${pad(w.s, 2)}.${pad(w.ms, 3)}` +
    `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`
  )
}

export type Interval = 'minute' | 'hour' | 'day' | 'week' | 'month'

/** Start of the calendar unit (in `tz`) containing instant `t`. */
export function floorToUnit(tz: string, t: number, unit: Interval): number {
  const w = localWall(tz, t)
  switch (unit) {
    case 'minute':
      return t - (w.s * 1000 + w.ms)
    case 'hour':
      return t - (w.mi * MS_MINUTE + w.s * 1000 + w.ms)
    case 'day':
      return startOfDay(tz, w)
    case 'week':
      return startOfDay(tz, addDays(w, -weekdayFromMonday(w)))
    case 'month':
      return startOfDay(tz, { y: w.y, m: w.m, d: 1 })
  }
}

/** Start of the unit following the unit that starts at `b`. */
export function nextUnit(tz: string, b: number, unit: Interval): number {
  let next: number
  switch (unit) {
    case 'minute':
      next = floorToUnit(tz, b + MS_MINUTE, unit)
      break
    case 'hour':
      next = floorToUnit(tz, b + MS_HOUR, unit)
      break
    case 'day':
      next = startOfDay(tz, addDays(localDate(tz, b), 1))
      break
    case 'week':
      next = startOfDay(tz, addDays(localDate(tz, b), 7))
      break
    case 'month': {
      const c = localDate(tz, b)
      next = startOfDay(tz, addMonths({ y: c.y, m: c.m, d: 1 }, 1))
      break
    }
  }
  if (next <= b) throw new Error(`bucket did not advance at ${b} (${unit}, ${tz})`)
  return next
}

/** Bucket starts: the unit containing `start`, then every following unit starting before `end`. */
export function bucketStarts(tz: string, start: number, end: number, unit: Interval): number[] {
  const out: number[] = []
  for (let b = floorToUnit(tz, start, unit); b < end; b = nextUnit(tz, b, unit)) out.push(b)
  return out
}

export const DURATION = { MS_MINUTE, MS_HOUR, MS_DAY }
