// Time buckets as SQL: the start of the calendar unit containing a timestamp, in the request's zone.
import { assertNever } from './errors'
import type { Interval } from './dates'

/** SQL for the bucket start of `column` (a DateTime64 column name) in the zone bound as {tz:String}. */
export function bucketExpression(interval: Interval, column: string): string {
  switch (interval) {
    case 'minute':
      return `toStartOfMinute(${column}, {tz:String})`
    case 'hour':
      return `toStartOfHour(${column}, {tz:String})`
    case 'day':
      return `toStartOfDay(${column}, {tz:String})`
    case 'week':
      // TRICKY: toStartOfWeek returns a Date; mode 1 starts weeks on Monday, and the Date is turned back
      // into that day's midnight in the zone (not in UTC).
      return `toDateTime(toStartOfWeek(${column}, 1, {tz:String}), {tz:String})`
    case 'month':
      return `toDateTime(toStartOfMonth(${column}, {tz:String}), {tz:String})`
    default:
      return assertNever(interval)
  }
}
