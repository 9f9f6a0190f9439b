// `GET /insights/:projectId/metrics`: totals and a zero-filled series of the session metrics and revenue.
import { bucketExpression } from '../core/buckets'
import { andClauses, compileInner, compileTemplate, sqlOnly, type Fragment } from '../core/compiled'
import { buckets, pickInterval } from '../core/dates'
import { decideRevenueReads, type EventReads } from '../core/reads'
import {
  capSeriesBuckets,
  decideFilters,
  parseInsightParams,
  seriesSchema,
  widenForSessions,
  type InsightQuery,
  type PlannedSeries,
} from './insight-params'
import { planSteps, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { percent, ratio } from '../core/rounding'
import { eventConditions, performedWith, sessionsMatchingAttributes } from '../sessions/session-sets'
import { sessionSource, sessionStatement, type SessionSource } from '../sessions/source'
import { eventJoin, windowSessions } from '../sessions/window-sessions'
import { metricsCompare } from './insight-compare'

/** A metrics request after its plan: where its revenue is read from decided (core/reads.ts). */
type PlannedMetrics = PlannedSeries & { reads: EventReads }

/** A row of a part ('sessions' or 'revenue') and a bucket, or its total (sql/insights/metrics.sql). */
type MetricsRow = Rows['insights/metrics.sql']

export interface Figures {
  bounce_rate: number
  unique_visitors: number
  total_sessions: number
  avg_session_duration: number
  total_screen_views: number
  views_per_session: number
  total_revenue: number
}

/** `AND ...` for revenue events: sessions kept by the attribute filters, events matching every event filter. */
function revenueFilters(source: SessionSource): Fragment {
  const parts = [sessionsMatchingAttributes(source), eventConditions(source.question)].filter((part): part is Fragment => part !== null)
  return andClauses(parts)
}

/**
 * The revenue rows, as (at, amount): the window's hours from the revenue_by_hour projection, or the
 * window's events kept by the filters (`reads`, core/reads.ts).
 */
function revenueRows(query: PlannedMetrics, source: SessionSource): Fragment {
  if (query.reads === 'hours') return compileInner('insights/revenue-hours.sql', source.params)
  return compileInner('insights/revenue-events.sql', source.params, { revenue_filters: revenueFilters(source) })
}

/** The totals and series of the window's sessions (from the wing) and revenue (insights/metrics.sql). */
function compileMetrics(query: PlannedMetrics) {
  const source = sessionSource(query)
  const { views, join } = eventJoin(source)
  return compileTemplate(
    'insights/metrics.sql',
    { ...source.params, tz: query.timezone },
    {
      performed_with: performedWith(source),
      session_bucket: sqlOnly(bucketExpression(query.interval, 'session_start')),
      event_bucket: sqlOnly(bucketExpression(query.interval, 'at')),
      window_sessions: windowSessions(source, []),
      views,
      views_join: join,
      revenue: revenueRows(query, source),
    },
  )
}

/** The lookup key of a row: its part and its bucket (epoch seconds), or the total. */
const rowKey = (part: string, bucket: number | 'total') => `${part}|${bucket}`

function toFigures(sessions: MetricsRow | undefined, revenue: MetricsRow | undefined): Figures {
  const count = Number(sessions?.session_count ?? 0)
  const views = Number(sessions?.view_count ?? 0)
  return {
    bounce_rate: percent(Number(sessions?.bounced ?? 0), count),
    unique_visitors: Number(sessions?.visitor_count ?? 0),
    total_sessions: count,
    avg_session_duration: ratio(Number(sessions?.duration_total_ms ?? 0), count * 1000),
    total_screen_views: views,
    views_per_session: ratio(views, count),
    total_revenue: Number(revenue?.revenue_total ?? 0),
  }
}

export const metrics: Resource<InsightQuery, PlannedMetrics, MetricsRow> = {
  name: 'metrics',
  schema: seriesSchema,
  parse: (raw, scope) => parseInsightParams(raw, scope, 'series'),
  plan: planSteps(pickInterval, capSeriesBuckets, widenForSessions, decideFilters, decideRevenueReads),
  ...sessionStatement(compileMetrics),
  shape(rows, query) {
    const byKey = new Map<string, MetricsRow>()
    for (const row of rows) byKey.set(rowKey(row.part, Number(row.is_total) ? 'total' : Number(row.bucket)), row)
    const series = buckets(query.window, query.interval, query.timezone).map(({ seconds, date }) => ({
      date,
      ...toFigures(byKey.get(rowKey('sessions', seconds)), byKey.get(rowKey('revenue', seconds))),
    }))
    return { body: { metrics: toFigures(byKey.get(rowKey('sessions', 'total')), byKey.get(rowKey('revenue', 'total'))), series } }
  },
  compare: metricsCompare(),
}
