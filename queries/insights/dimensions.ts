// The breakdown resources (`/referrer`, `/country`, ...): one shared template, one registry entry each.
import { compileTemplate } from '../core/compiled'
import { parseInsightParams, pagedSchema, widenForSessions, type InsightQuery } from './insight-params'
import { pageParams, splitPage } from '../core/paging'
import type { Resource } from '../core/pipeline'
import { DIMENSIONS, SESSION_ATTRIBUTES, type Dimension } from '../core/registry'
import { percent, ratio } from '../core/rounding'
import { eventJoin, windowParams, windowSessions } from './session-sql'

interface DimensionRow {
  prefix_value: string
  name_value: string
  session_count: number
  view_count: number
  bounced: number
  duration_total_ms: number
}

function dimensionResource(name: Dimension): Resource<InsightQuery> {
  const spec: { column: keyof typeof SESSION_ATTRIBUTES; prefix?: keyof typeof SESSION_ATTRIBUTES } = DIMENSIONS[name]
  return {
    name,
    schema: pagedSchema,
    parse: (raw, scope) => parseInsightParams(raw, scope, 'paged'),
    plan: [widenForSessions],
    compile(query) {
      const { views, join } = eventJoin(query)
      const attributes = spec.prefix ? [spec.column, spec.prefix] : [spec.column]
      return compileTemplate(
        'insights/dimension.sql',
        { ...windowParams(query), ...pageParams(query) },
        {
          prefix: { sql: spec.prefix ? `s_${SESSION_ATTRIBUTES[spec.prefix]}` : "''", params: {} },
          name: { sql: `s_${SESSION_ATTRIBUTES[spec.column]}`, params: {} },
          window_sessions: windowSessions(query, attributes),
          views,
          views_join: join,
        },
      )
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

export const dimensions: Resource<InsightQuery>[] = (Object.keys(DIMENSIONS) as Dimension[]).map(dimensionResource)
