// `GET /insights/:projectId/active_users` (OpenPanel's): rolling active visitors, each local day of the
// window counting the distinct visitors active in the `days` days up to it (DAU, WAU, MAU).
import { DateTime } from 'luxon'
import { compileTemplate } from '../core/compiled'
import { bucketCount, type Range, type Window } from '../core/dates'
import { invalid } from '../core/errors'
import { planSteps, toClickHouseTime, type Resource } from '../core/pipeline'
import { windowOrThrow } from '../core/request-window'
import type { Rows } from '../core/rows.generated'
import { checkedParams, compileSchema } from '../core/validate'
import { SERIES_BUCKET_CAP } from '../insights/insight-params'
import { openpanelDateProperties, withOpenPanelWindow } from './adapt'

interface ActiveUsersQuery {
  projectId: string
  timezone: string
  window: Window
  days: number
}

/** Planned: the window's first and last local days, and where the first one's trailing days start. */
interface PlannedActiveUsers extends ActiveUsersQuery {
  firstDay: string
  lastDay: string
  readFrom: Date
}

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    days: { type: 'integer', minimum: 1, maximum: 90, default: 7, description: 'Days a visitor stays counted after an active day' },
    ...openpanelDateProperties,
    timezone: { type: 'string' },
  },
}
const validate = compileSchema(schema)

/** OpenPanel's names of the usual windows. */
const LABELS: Record<number, string> = { 1: 'DAU', 7: 'WAU', 30: 'MAU' }

function parseActiveUsers(raw: Record<string, unknown>, scope: Parameters<Resource<unknown>['parse']>[1]): ActiveUsersQuery {
  const { typed, issues } = checkedParams<{ days: number; startDate?: string; endDate?: string; range?: Range; timezone?: string }>(
    validate,
    withOpenPanelWindow(raw, scope),
  )
  // `withOpenPanelWindow` gave a startDate where there is no range, and a startDate overrides any range.
  const dates = { ...typed, range: typed.range ?? ('7d' as const) }
  const { projectId, timezone, window } = windowOrThrow(dates, scope, issues)
  const days = bucketCount(window, 'day', timezone)
  if (days > SERIES_BUCKET_CAP) {
    throw invalid([
      { path: ['startDate'], message: `this series would have ${days} days, more than ${SERIES_BUCKET_CAP}: narrow the window` },
    ])
  }
  return { projectId, timezone, window, days: typed.days }
}

/** Plan step: the window's local days, and the start of the trailing days of its first one. */
function resolveDays(query: ActiveUsersQuery): PlannedActiveUsers {
  const first = DateTime.fromJSDate(query.window.start, { zone: query.timezone }).startOf('day')
  const last = DateTime.fromJSDate(new Date(query.window.end.getTime() - 1), { zone: query.timezone })
  return {
    ...query,
    firstDay: first.toISODate() as string,
    lastDay: last.toISODate() as string,
    readFrom: first.minus({ days: query.days - 1 }).toJSDate(),
  }
}

/** The local days from the first to the last, as `YYYY-MM-DD`. */
function daysOf(query: PlannedActiveUsers): string[] {
  const days: string[] = []
  for (let day = DateTime.fromISO(query.firstDay); (day.toISODate() ?? '') <= query.lastDay; day = day.plus({ days: 1 })) {
    days.push(day.toISODate() as string)
  }
  return days
}

/** The most days read (the window's and the first one's trailing days) that one UInt64 per visitor holds. */
const BITMASK_DAYS = 64

export const activeUsers: Resource<ActiveUsersQuery, PlannedActiveUsers, Rows['openpanel/active-users.sql']> = {
  name: 'openpanel.active_users',
  schema,
  parse: parseActiveUsers,
  plan: planSteps(resolveDays),
  compile(query) {
    const read = daysOf(query).length + query.days - 1
    return compileTemplate(read <= BITMASK_DAYS ? 'openpanel/active-users.sql' : 'openpanel/active-users-long.sql', {
      projectId: query.projectId,
      tz: query.timezone,
      readFrom: toClickHouseTime(query.readFrom),
      end: toClickHouseTime(query.window.end),
      days: query.days,
      firstDay: query.firstDay,
      lastDay: query.lastDay,
    })
  },
  shape(rows, query) {
    const users = new Map(rows.map((row) => [String(row.day), Number(row.users)]))
    return {
      body: {
        window_days: query.days,
        label: LABELS[query.days] ?? `${query.days}d active`,
        series: daysOf(query).map((date) => ({ date, users: users.get(date) ?? 0 })),
      },
    }
  },
}
