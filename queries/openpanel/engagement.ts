// `GET /insights/:projectId/engagement` (OpenPanel's): identified visitors by days since their last
// event, over the project's whole history, with OpenPanel's activity bands.
import { DateTime } from 'luxon'
import { compileTemplate } from '../core/compiled'
import { isValidTimezone } from '../core/dates'
import { invalid } from '../core/errors'
import { planSteps, toClickHouseTime, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { checkedParams, compileSchema } from '../core/validate'

interface EngagementQuery {
  projectId: string
  timezone: string
  now: Date
}

const schema = { type: 'object', additionalProperties: false, properties: { timezone: { type: 'string' } } }
const validate = compileSchema(schema)

/** OpenPanel's bands: the most days since the last event each one holds (the last one holds the rest). */
const BANDS = [
  ['active_last_7_days', 7],
  ['active_8_to_14_days', 14],
  ['active_15_to_30_days', 30],
  ['inactive_31_to_60_days', 60],
  ['churned_60_plus_days', Number.POSITIVE_INFINITY],
] as const

export const engagement: Resource<EngagementQuery, EngagementQuery, Rows['openpanel/engagement.sql']> = {
  name: 'openpanel.engagement',
  schema,
  parse(raw, scope) {
    const { typed, issues } = checkedParams<{ timezone?: string }>(validate, raw)
    if (typed.timezone !== undefined && !isValidTimezone(typed.timezone)) {
      issues.push({ path: ['timezone'], message: `"timezone" must be an IANA time zone such as Europe/Berlin, got "${typed.timezone}"` })
    }
    if (issues.length) throw invalid(issues)
    return { projectId: scope.project.id, timezone: typed.timezone ?? scope.project.timezone, now: scope.now }
  },
  plan: planSteps((query: EngagementQuery) => query),
  compile(query) {
    return compileTemplate('openpanel/engagement.sql', {
      projectId: query.projectId,
      tz: query.timezone,
      now: toClickHouseTime(query.now),
      today: DateTime.fromJSDate(query.now, { zone: query.timezone }).toISODate() as string,
    })
  },
  shape(rows) {
    const distribution = rows.map((row) => ({ days: Number(row.days), users: Number(row.users) }))
    const summary: Record<string, number> = { total_identified_users: 0, ...Object.fromEntries(BANDS.map(([name]) => [name, 0])) }
    for (const { days, users } of distribution) {
      const band = BANDS.find(([, most]) => days <= most) ?? BANDS[BANDS.length - 1]
      summary[band[0]] += users
      summary.total_identified_users += users
    }
    return { body: { summary, distribution } }
  },
}
