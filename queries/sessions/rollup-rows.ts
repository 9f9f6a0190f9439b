// The settled days' sessions counted per breakdown value and hour (or UTC day), from the session rollup: the
// relation a breakdown or the entry and exit pages read for the settled days when no filter keeps a session
// out (queries/sessions/reads.ts); the other days come from `regroupedSessions`.
import { compileInner, sqlOnly, type Fragment } from '../core/compiled'
import { DAY_MS } from '../core/dates'
import { toClickHouseTime } from '../core/pipeline'
import type { SessionSource } from './source'

/**
 * The rollup's rows of the breakdowns `names` (registry names, as SQL text) by the hour (sessions/rollup-hours.sql):
 * with several, each told by its index as `member`.
 */
export function breakdownRollupRows(source: SessionSource, names: readonly string[]): Fragment {
  const list = names.join(', ')
  return compileInner('sessions/session-rollup-rows.sql', source.params, {
    member: sqlOnly(names.length > 1 ? `\n  toUInt32(indexOf([${list}], dimension) - 1) AS member,` : ''),
    rollup_hours: compileInner('sessions/rollup-hours.sql', source.params, { dimensions: sqlOnly(list) }),
  })
}

/**
 * The window's whole UTC days, [wholeFrom, wholeTo): the first midnight at or after its start to the last at
 * or before its end; with none, both are its end, so every hour of the window is read by the hour.
 */
export function wholeDays(window: { start: Date; end: Date }): { wholeFrom: string; wholeTo: string } {
  const from = Math.ceil(window.start.getTime() / DAY_MS) * DAY_MS
  const to = Math.floor(window.end.getTime() / DAY_MS) * DAY_MS
  const [wholeFrom, wholeTo] = from < to ? [from, to] : [window.end.getTime(), window.end.getTime()]
  return { wholeFrom: toClickHouseTime(new Date(wholeFrom)), wholeTo: toClickHouseTime(new Date(wholeTo)) }
}

/**
 * The rollup's rows of the page members `dimensions`, by the day over the window's whole days and by the hour
 * over the rest (sessions/rollup-days.sql), binding the whole days' bounds; with several, each told by
 * its index as `member`.
 */
export function pageRollupRows(source: SessionSource, dimensions: readonly string[]): Fragment {
  const days = wholeDays(source.question.window)
  const names = (suffix: string) => dimensions.map((dimension) => `'${dimension}${suffix}'`).join(', ')
  const member =
    dimensions.length > 1 ? `\n  toUInt32(indexOf([${names('')}], dimension) + indexOf([${names('_day')}], dimension) - 1) AS member,` : ''
  const context = { ...source.params, ...days }
  const rows = compileInner('sessions/session-rollup-rows.sql', context, {
    member: sqlOnly(member),
    rollup_hours: compileInner('sessions/rollup-days.sql', context, {
      dimensions: sqlOnly(names('')),
      day_dimensions: sqlOnly(names('_day')),
    }),
  })
  return { sql: rows.sql, params: { ...rows.params, ...days } }
}
