// The statement of `/table` (insights/table.sql): its dimension columns, the figures its metrics need and its
// order, each from a closed table keyed by the request's names; the sessions come from the sessions wing.
import { keptKeysCondition } from '../core/compare'
import { compileInner, compileTemplate, mergeParams, sqlOnly, type CompiledQuery, type Fragment } from '../core/compiled'
import type { Performed } from '../core/filter-tree'
import { compileFilter } from '../core/filters'
import { pageParams } from '../core/paging'
import { sessionColumn } from '../core/registry'
import { performedWith } from '../sessions/session-sets'
import { sessionSource } from '../sessions/source'
import { eventJoin, windowSessions } from '../sessions/window-sessions'
import type { PlannedInsight } from './insight-params'

/** The dimension columns a compared question's kept tuples match, as many as dimensions asked. */
const KEPT_COLUMNS = ['dimension_1', 'dimension_2', 'dimension_3'] as const
import { TABLE_DIMENSIONS, type SortOrder, type TableMetric, type TableQuery } from './table-params'

export type PlannedTable = TableQuery & PlannedInsight

/** What a metric needs computed beyond the session counts every row has. */
type Need = 'visitors' | 'events' | 'revenue' | 'goal'

/**
 * Each metric's sort key over the statement's columns, as the response shows the metric: rates and means in
 * hundredths, rounded half up in integers as core/rounding.ts rounds them, so rows showing equal values tie
 * and fall back to the dimensions. A row has at least one session and one visitor.
 */
const METRIC_SQL = {
  visitors: { key: 'visitor_count', needs: ['visitors'] },
  sessions: { key: 'session_count', needs: [] },
  pageviews: { key: 'view_count', needs: [] },
  bounce_rate: { key: 'intDivOrZero(20000 * bounced + session_count, 2 * session_count)', needs: [] },
  avg_session_duration: { key: 'intDivOrZero(200 * duration_total_ms + 1000 * session_count, 2000 * session_count)', needs: [] },
  views_per_session: { key: 'intDivOrZero(200 * view_count + session_count, 2 * session_count)', needs: [] },
  events: { key: 'event_count', needs: ['events'] },
  revenue: { key: 'revenue_total', needs: ['revenue'] },
  conversion_rate: { key: 'intDivOrZero(20000 * converted_visitors + visitor_count, 2 * visitor_count)', needs: ['visitors', 'goal'] },
} as const satisfies Record<TableMetric, { key: string; needs: readonly Need[] }>

const DIRECTIONS = { desc: 'DESC', asc: 'ASC' } as const satisfies Record<SortOrder, string>

/** The column each need adds, and its value (0) when no metric asks for it. */
const FIGURES = {
  visitors: { column: 'visitor_count', sql: 'uniqExact(visitor_key)', none: 'toUInt64(0)' },
  events: { column: 'event_count', sql: 'toUInt64(sum(session_event_count))', none: 'toUInt64(0)' },
  revenue: { column: 'revenue_total', sql: 'toInt64(sum(session_revenue))', none: 'toInt64(0)' },
  goal: { column: 'converted_visitors', sql: 'uniqExactIf(visitor_key, session_converted = 1)', none: 'toUInt64(0)' },
} as const satisfies Record<Need, { column: string; sql: string; none: string }>

/** `<sql> AS <column>` lines, comma-separated, each on its own line (a marker follows `SELECT` or a comma). */
const columnLines = (columns: [string, string][]): string => columns.map(([sql, alias]) => `\n  ${sql} AS ${alias}`).join(',')

const needsOf = (metrics: readonly TableMetric[]): Set<Need> => new Set(metrics.flatMap((metric) => METRIC_SQL[metric].needs))

/** The goal as a condition over an event row, its values bound under `goal_`. */
function goalCondition(goal: Performed): Fragment {
  const parts: Fragment[] = []
  if (goal.name !== undefined) parts.push({ sql: 'name = {goal_name:String}', params: { goal_name: goal.name } })
  parts.push(...goal.filters.map((filter, index) => compileFilter(filter, `goal_f${index}`, 'events')))
  if (parts.length === 0) return sqlOnly('1')
  return {
    sql: `(${parts.map((part) => part.sql).join(' AND ')})`,
    params: mergeParams(
      parts.map((part) => part.params),
      'the goal',
    ),
  }
}

/**
 * The join of each session's events (insights/table-session-events.sql) when a metric needs them; the scan
 * narrowed to the events with revenue or matching the goal when the event count is not asked.
 */
function sessionEvents(query: PlannedTable, needs: Set<Need>, context: CompiledQuery['params']): Fragment {
  if (!needs.has('events') && !needs.has('revenue') && !needs.has('goal')) return sqlOnly('')
  const goal = query.goal && needs.has('goal') ? goalCondition(query.goal) : sqlOnly('0')
  const scope = needs.has('events') ? [] : [...(needs.has('revenue') ? ['revenue != 0'] : []), ...(needs.has('goal') ? [goal.sql] : [])]
  const joined = compileInner('insights/table-session-events.sql', context, {
    goal,
    conditions: sqlOnly(scope.length ? `\n  AND (${scope.join(' OR ')})` : ''),
  })
  return { sql: `\n${joined.sql}`, params: joined.params }
}

/** ORDER BY: the metric's key in its direction, then each dimension ascending with empty values (null) last. */
function tableOrder(query: PlannedTable): Fragment {
  const dimensions = query.dimensions.flatMap((_, index) => [`dimension_${index + 1} = '' ASC`, `dimension_${index + 1} ASC`])
  return sqlOnly([`${METRIC_SQL[query.orderBy.metric].key} ${DIRECTIONS[query.orderBy.order]}`, ...dimensions].join(', '))
}

/** The table's statement: the window's kept sessions grouped by the dimensions, with the figures its metrics need. */
export function compileTable(query: PlannedTable): CompiledQuery {
  const source = sessionSource(query)
  const params = { ...source.params, ...pageParams(query) }
  const fields = query.dimensions.map((dimension) => TABLE_DIMENSIONS[dimension])
  const { views, join } = eventJoin(source)
  const needs = needsOf(query.metrics)
  const dimensions = [0, 1, 2].map((index): [string, string] => [
    fields[index] ? `toString(${sessionColumn(fields[index])})` : "''",
    `dimension_${index + 1}`,
  ])
  const figures = (Object.keys(FIGURES) as Need[]).map((need): [string, string] => [
    needs.has(need) ? FIGURES[need].sql : FIGURES[need].none,
    FIGURES[need].column,
  ])
  return compileTemplate('insights/table.sql', params, {
    performed_with: performedWith(source),
    table_dimensions: sqlOnly(`${columnLines(dimensions)},`),
    table_figures: sqlOnly(columnLines(figures)),
    views,
    window_sessions: windowSessions(source, fields),
    views_join: join,
    session_events: sessionEvents(query, needs, params),
    table_order: tableOrder(query),
    kept_keys: keptKeysCondition(query.kept, KEPT_COLUMNS.slice(0, query.dimensions.length), '\nHAVING'),
  })
}
