// SQL fragments shared by the session-based insights: the window's sessions (partial rows combined,
// filters applied) and the page views counted under event-field filters.
import { andClauses, compileFragment, type Fragment, type Params } from '../core/compiled'
import { compileAll, isNameFilter, isSessionFilter, sessionAttributesOf } from '../core/filters'
import type { InsightQuery } from './insight-params'
import { toClickHouseTime } from '../core/pipeline'
import { SESSION_ATTRIBUTES, type SessionAttribute } from '../core/registry'

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

/** `AND ...` restricting grouped sessions by the session-attribute filters. */
function attributeRestriction(query: InsightQuery): Fragment {
  const attributeFilters = compileAll(query.filters, { keep: isSessionFilter })
  return andClauses(attributeFilters ? [attributeFilters] : [])
}

/**
 * The window's sessions kept by the attribute filters, with `s_` columns for `attributes` (and the
 * filters'). The event-field filters apply through `eventJoin`.
 */
export function windowSessions(query: InsightQuery, attributes: SessionAttribute[]): Fragment {
  return compileFragment('insights/window-sessions.sql', windowParams(query), {
    attributes: attributeColumns([...attributes, ...sessionAttributesOf(query.filters)]),
    session_filters: attributeRestriction(query),
  })
}

/**
 * The event-field filters over the window's sessions: without any, no join and all page views count;
 * with some, an INNER JOIN keeping the sessions with a matching event, whose page views count only where
 * they match the filters other than `name` (`counted_views`).
 */
export function eventJoin(query: InsightQuery): { views: Fragment; join: Fragment } {
  const events = eventConditions(query)
  if (!events) return { views: { sql: 'all_views', params: {} }, join: EMPTY }
  const viewFilters = viewConditions(query)
  const scan = compileFragment('insights/session-events.sql', windowParams(query), { event_filters: events, view_filters: viewFilters ?? { sql: '1', params: {} } })
  return {
    views: { sql: viewFilters ? 'counted_views' : 'all_views', params: {} },
    join: { sql: `INNER JOIN\n(\n${scan.sql}\n) AS matched USING (session_id)`, params: scan.params },
  }
}
