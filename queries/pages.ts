// `GET /insights/:projectId/pages`: page rows per (origin, path) of the window's page views.
import { compileTemplate, type Fragment } from './compiled'
import { sessionAttributesOf } from './filters'
import { parseInsightParams, pagedSchema, widenForSessions, type InsightQuery } from './insight-params'
import { pageParams, splitPage } from './paging'
import type { Resource } from './pipeline'
import { percent, ratioOrNull } from './rounding'
import { attributeColumns, sessionRestriction, viewConditions, windowParams } from './session-sql'

interface PageRow {
  origin: string
  path: string
  latest_title: string
  session_count: number
  view_count: number
  entered: number
  entered_bounced: number
  with_next: number
  gap_total_ms: number
}

/** Which views count: those matching every event-field filter other than `name`. */
const viewMatch = (query: InsightQuery): Fragment => viewConditions(query) ?? { sql: '1', params: {} }

export const pages: Resource<InsightQuery> = {
  name: 'pages',
  schema: pagedSchema,
  parse: (raw, scope) => parseInsightParams(raw, scope, 'paged'),
  plan: [widenForSessions],
  compile(query) {
    return compileTemplate(
      'insights/pages.sql',
      { ...windowParams(query), ...pageParams(query) },
      {
        attributes: attributeColumns(sessionAttributesOf(query.filters)),
        session_filters: sessionRestriction(query, { attributes: true, events: true }),
        view_match: viewMatch(query),
      },
    )
  },
  shape(rawRows, query) {
    const { page, hasMore } = splitPage(rawRows as unknown as PageRow[], query)
    const body = page.map((row) => {
      const entered = Number(row.entered)
      return {
        title: row.latest_title,
        origin: row.origin,
        path: row.path,
        sessions: Number(row.session_count),
        pageviews: Number(row.view_count),
        bounce_rate: entered === 0 ? null : percent(Number(row.entered_bounced), entered),
        avg_duration: ratioOrNull(Number(row.gap_total_ms), Number(row.with_next) * 1000),
      }
    })
    return { body, hasMore }
  },
}
