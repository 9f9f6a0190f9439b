// How a discovery question reads its window: the UTC days inside it from the summaries' day rows, the whole
// UTC hours left at its edges from their hour rows, and the minutes left over from the events themselves.
// The three parts cover the window exactly, so the counts are exact whatever its bounds, and its cost
// follows its days, not its events.
import { DAY_MS, HOUR_MS, type Window } from '../core/dates'

/**
 * `start <= hoursFrom <= daysFrom <= daysTo <= hoursTo <= end`: days [daysFrom, daysTo), hours
 * [hoursFrom, daysFrom) and [daysTo, hoursTo), events [start, hoursFrom) and [hoursTo, end). An empty
 * part has equal bounds.
 */
export interface WindowParts {
  hoursFrom: Date
  daysFrom: Date
  daysTo: Date
  hoursTo: Date
}

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit
const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit

/**
 * The whole units of `unit` ms (UTC) inside [from, to), as a range; an empty range at `to` when none
 * fits. TRICKY: days are UTC days (a zone's midnight is another instant), so a day-based window in a zone
 * other than UTC has hours at both edges, and a zone not on whole hours (Asia/Kolkata) minutes too.
 */
function wholeUnits(from: number, to: number, unit: number): { first: number; last: number } {
  const first = ceilTo(from, unit)
  const last = floorTo(to, unit)
  return first < last ? { first, last } : { first: to, last: to }
}

/** Plan step: the parts a discovery question reads its window in. */
export function splitWindow<Q extends { window: Window }>(query: Q): Q & { parts: WindowParts } {
  const hours = wholeUnits(query.window.start.getTime(), query.window.end.getTime(), HOUR_MS)
  const days = wholeUnits(hours.first, hours.last, DAY_MS)
  return {
    ...query,
    parts: { hoursFrom: new Date(hours.first), daysFrom: new Date(days.first), daysTo: new Date(days.last), hoursTo: new Date(hours.last) },
  }
}
