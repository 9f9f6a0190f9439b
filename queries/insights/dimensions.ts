// The breakdown resources (`/referrer`, `/country`, ...): one shared template, one registry entry each.
import { compileTemplate, sqlOnly } from '../core/compiled'
import { decideFilters, parseInsightParams, pagedSchema, widenForSessions, type InsightQuery, type PlannedInsight } from './insight-params'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, type Resource } from '../core/pipeline'
import { DIMENSIONS, SESSION_ATTRIBUTES, type Dimension } from '../core/registry'
import { percent, ratio } from '../core/rounding'
import { eventJoin, sessionParams, settledCheck, windowSessions } from './session-sql'

interface DimensionRow {
  prefix_value: string
  name_value: string
  session_count: number
  view_count: number
  bounced: number
  duration_total_ms: number
}

function dimensionResource(name: Dimension): Resource<InsightQuery, PlannedInsight> {
  const spec: { column: keyof typeof SESSION_ATTRIBUTES; prefix?: keyof typeof SESSION_ATTRIBUTES } = DIMENSIONS[name]
  return {
    name,
    schema: pagedSchema,
    parse: (raw, scope) => parseInsightParams(raw, scope, 'paged'),
    plan: planSteps(widenForSessions, decideFilters),
    compile(query) {
      const { views, join } = eventJoin(query)
      const attributes = spec.prefix ? [spec.column, spec.prefix] : [spec.column]
      const statement = compileTemplate(
        'insights/dimension.sql',
        { ...sessionParams(query), ...pageParams(query) },
        {
          prefix: sqlOnly(spec.prefix ? `s_${SESSION_ATTRIBUTES[spec.prefix]}` : "''"),
          name: sqlOnly(`s_${SESSION_ATTRIBUTES[spec.column]}`),
          window_sessions: windowSessions(query, attributes),
          views,
          views_join: join,
        },
      )
      return { ...statement, settledCheck: settledCheck(query) }
    },
    shape(rawRows, query) {
      const { page, hasMore } = splitPage(rawRows as unknown as DimensionRow[], query)
      const body = page.map((row) => {
        const sessions = Number(row.session_count)
        return {
          ...(spec.prefix ? { prefix: row.prefix_value === '' ? null : row.prefix_value } : {}),
          name: row.name_value === '' ? null : row.name_value,
          sessions,
          pageviews: Number(row.view_count),
          bounce_rate: percent(Number(row.bounced), sessions),
          avg_session_duration: ratio(Number(row.duration_total_ms), sessions * 1000),
        }
      })
      return { body, hasMore }
    },
  }
}

export const dimensions: Resource<InsightQuery, PlannedInsight>[] = (Object.keys(DIMENSIONS) as Dimension[]).map(dimensionResource)
