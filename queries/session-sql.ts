// SQL fragments shared by the session-based insights: the window's sessions (partial rows combined,
// filters applied) and the page views counted under event-field filters.
import { andClauses, compileFragment, type Fragment, type Params } from './compiled'
import { compileAll, isNameFilter, isSessionFilter, sessionAttributesOf } from './filters'
import type { InsightQuery } from './insight-params'
import { toClickHouseTime } from './pipeline'
import { SESSION_ATTRIBUTES, type SessionAttribute } from './registry'

/** The statement-wide params: project and the window, with the lookback read range. */
export function windowParams(query: InsightQuery): Params {
  return {
    projectId: query.projectId,
    start: toClickHouseTime(query.window.start),
    end: toClickHouseTime(query.window.end),
    readFrom: toClickHouseTime(query.readFrom as Date),
    readTo: toClickHouseTime(query.readTo as Date),
  }
}

const EMPTY: Fragment = { sql: '', params: {} }

/** `argMin(col, ...) AS s_col` for each attribute, for a GROUP BY session_id over `sessions`. */
export function attributeColumns(attributes: SessionAttribute[]): Fragment {
  const unique = [...new Set(attributes)]
  return {
    sql: unique.map((attribute) => `,\n  argMin(${SESSION_ATTRIBUTES[attribute]}, first_event_key) AS s_${SESSION_ATTRIBUTES[attribute]}`).join(''),
    params: {},
  }
}

/** Every event-field filter ANDed (`name` included), or null. */
export function eventConditions(query: InsightQuery): Fragment | null {
  return compileAll(query.filters, { keep: (filter) => !isSessionFilter(filter) })
}

/** Every event-field filter but `name` ANDed (the filters a counted page view must match), or null. */
export function viewConditions(query: InsightQuery): Fragment | null {
  return compileAll(query.filters, { keep: (filter) => !isSessionFilter(filter) && !isNameFilter(filter) })
}

/**
 * `session_id IN (...)` for sessions (started from the lookback before the window to its end) whose
 * attributes pass the session-attribute filters, or null when there are none.
 */
export function sessionsMatchingAttributes(query: InsightQuery): Fragment | null {
  const attributeFilters = compileAll(query.filters, { keep: isSessionFilter })
  if (!attributeFilters) return null
  const matching = compileFragment('insights/sessions-matching.sql', windowParams(query), {
    attributes: attributeColumns(sessionAttributesOf(query.filters)),
    session_filters: andClauses([attributeFilters]),
  })
  return { sql: `session_id IN (\n${matching.sql}\n)`, params: matching.params }
}

/** `session_id IN (...)` for sessions with an event matching every event-field filter, or null when there are none. */
export function sessionsWithEvent(query: InsightQuery): Fragment | null {
  const events = eventConditions(query)
  if (!events) return null
  const subquery = compileFragment('insights/sessions-with-event.sql', windowParams(query), { event_filters: events })
  return { sql: `session_id IN (\n${subquery.sql}\n)`, params: subquery.params }
}

/** `AND ...` restricting grouped sessions: attribute filters, and "has an event matching all event filters". */
function sessionRestriction(query: InsightQuery): Fragment {
  const attributeFilters = compileAll(query.filters, { keep: isSessionFilter })
  return andClauses([attributeFilters, sessionsWithEvent(query)].filter((part): part is Fragment => part !== null))
}

/** The window's sessions kept by all filters, with `s_` columns for `attributes` (and the filters'). */
export function windowSessions(query: InsightQuery, attributes: SessionAttribute[]): Fragment {
  return compileFragment('insights/window-sessions.sql', windowParams(query), {
    attributes: attributeColumns([...attributes, ...sessionAttributesOf(query.filters)]),
    session_filters: sessionRestriction(query),
  })
}

/**
 * How a session's page views are counted: all of them, or, under event-field filters other than
 * `name`, only those matching them (joined from `counted_views`).
 */
export function viewCounting(query: InsightQuery): { views: Fragment; join: Fragment } {
  const viewFilters = viewConditions(query)
  if (!viewFilters) return { views: { sql: 'all_views', params: {} }, join: EMPTY }
  const counted = compileFragment('insights/counted-views.sql', windowParams(query), { event_filters: viewFilters })
  return { views: { sql: 'counted_views', params: {} }, join: { sql: `LEFT JOIN\n(\n${counted.sql}\n) AS counted USING (session_id)`, params: counted.params } }
}
