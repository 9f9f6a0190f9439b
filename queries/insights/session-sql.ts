// SQL fragments shared by the session-based insights: the window's sessions (partial rows combined,
// filters applied) and the page views counted under event-field filters. The filters come compiled
// and sorted by the plan (`decideFilters`); these fragments only place them, and the statement binds
// their values once (`sessionParams`).
import { andClauses, compileInner, compileTemplate, sqlOnly, type CompiledQuery, type Fragment, type Params } from '../core/compiled'
import { settledParams, type DayParams } from '../core/settled-days'
import type { PlannedInsight } from './insight-params'
import { toClickHouseTime } from '../core/pipeline'
import { sessionColumn, type SessionAttribute, type SessionField } from '../core/registry'
import { combinedFields } from '../core/session-fields'
import { windowParams } from '../core/window-params'
import { DAY_MS } from '../core/dates'
import { COMPACTION_DEFINITION } from '../sessions/definition'
import { PERFORMED_SESSIONS } from '../core/filter-tree'

const utcDay = (time: number) => Math.floor(time / DAY_MS) * DAY_MS
const dateText = (time: number) => new Date(time).toISOString().slice(0, 10)

/** The window's first and last UTC days, as times. */
const firstDay = (query: PlannedInsight) => utcDay(query.window.start.getTime())
const lastDay = (query: PlannedInsight) => utcDay(query.window.end.getTime() - 1)

/** The window's UTC days and the lookback: a settled check binds them, its statement the days and what its rows give. */
function dayParams(query: PlannedInsight): DayParams {
  return { lookbackSeconds: Math.round(query.lookbackMs / 1000), firstDay: dateText(firstDay(query)), lastDay: dateText(lastDay(query)) }
}

/**
 * The statement-wide params: project, the window with the lookback read range, the window's UTC days, the
 * settled ones among them with their compactions and the regrouped days' range (from the settled check's
 * rows, `query.settled`; without them none settled, every day regrouped), and every filter's values.
 */
export function sessionParams(query: PlannedInsight): Params {
  const days = dayParams(query)
  return {
    ...windowParams(query.projectId, query.window),
    readFrom: toClickHouseTime(query.readFrom),
    readTo: toClickHouseTime(query.readTo),
    firstDay: days.firstDay,
    lastDay: days.lastDay,
    ...settledParams(days, query.settled ?? []),
    ...query.sorted.params,
  }
}

const EMPTY: Fragment = sqlOnly('')

/**
 * A filter tree's performed sessions named once for the whole statement, which every place of the tree reads
 * by name (queries/core/filter-tree.ts); nothing for other filters. TRICKY: a name of the outermost WITH is
 * seen by every SELECT of the statement, both of a UNION ALL and every subquery, by the engine's
 * `enable_global_with_statement` (on by default); with it off, the other SELECTs would not know the name.
 */
const namedPerformed = (query: PlannedInsight, name: (scan: string) => string): Fragment =>
  query.sorted.performedSessions === null ? EMPTY : sqlOnly(name(query.sorted.performedSessions))

/** The performed sessions as a WITH before a statement's first SELECT (the `performed_with` marker). */
export const performedWith = (query: PlannedInsight): Fragment => namedPerformed(query, (scan) => `WITH ${PERFORMED_SESSIONS} AS\n(\n${scan}\n)\n`)

/** The performed sessions as the first item of the WITH a statement opens with (the `performed_cte` marker). */
export const performedInWith = (query: PlannedInsight): Fragment => namedPerformed(query, (scan) => `\n  ${PERFORMED_SESSIONS} AS\n  (\n${scan}\n  ),`)

/**
 * The settled check of a session question (insights/settled-days.sql): the window's UTC days read
 * combined, and the partial rows their read ranges hold now, counted from the lookback before the first
 * day to the lookback after the last.
 */
export function settledCheck(query: PlannedInsight): CompiledQuery {
  return compileTemplate('insights/settled-days.sql', {
    projectId: query.projectId,
    ...dayParams(query),
    countFrom: toClickHouseTime(new Date(firstDay(query) - query.lookbackMs)),
    countTo: toClickHouseTime(new Date(lastDay(query) + DAY_MS + query.lookbackMs)),
    definition: COMPACTION_DEFINITION,
  })
}

/**
 * Each field combined over a session's partial rows (`argMin(col, first_event_key) AS s_col`, an exit by its
 * latest view), for a GROUP BY session over `sessions` (core/session-fields.ts).
 */
export function attributeColumns(attributes: SessionField[]): Fragment {
  return sqlOnly(combinedFields(attributes))
}

/** `s_col` for each attribute: the same columns as `attributeColumns`, read from `sessions_settled`. */
function settledColumns(attributes: SessionField[]): Fragment {
  return sqlOnly([...new Set(attributes)].map((attribute) => `,\n  ${sessionColumn(attribute)}`).join(''))
}

const orNull = (sql: string | null): Fragment | null => (sql === null ? null : sqlOnly(sql))

/** Every event-field filter ANDed (`name` included), or null. */
export const eventConditions = (query: PlannedInsight): Fragment | null => orNull(query.sorted.eventSelection)

/** Every event-field filter but `name` ANDed (the filters a counted page view must match), or null. */
export const viewConditions = (query: PlannedInsight): Fragment | null => orNull(query.sorted.viewCondition)

/** `AND ...` restricting grouped sessions by the session-attribute filters. */
function attributeRestriction(query: PlannedInsight): Fragment {
  const restriction = orNull(query.sorted.sessionRestriction)
  return andClauses(restriction ? [restriction] : [])
}

/**
 * The restriction placed in each source of the window's sessions (settled and regrouped), and the one
 * placed once over both. A restriction that reads sets built from events goes over both: TRICKY: the
 * engine builds such a set once per SELECT of a UNION ALL that reads it (on 10M events, one `IN` set read
 * by both branches took about twice the time of one read by one), but once for every place of one SELECT.
 */
function sourceRestrictions(query: PlannedInsight): { inSources: Fragment; overAll: Fragment } {
  if (!query.sorted.restrictionReadsEvents || query.sorted.sessionRestriction === null) return { inSources: attributeRestriction(query), overAll: EMPTY }
  return { inSources: EMPTY, overAll: sqlOnly(`
WHERE ${query.sorted.sessionRestriction}`) }
}

/**
 * `session_id IN (...)` for sessions (started from the lookback before the window to its end) whose
 * attributes pass the session-attribute filters, or null when there are none. A tree that reads no
 * attribute (only `performed` leaves) is itself a condition on session_id, placed as it is.
 */
export function sessionsMatchingAttributes(query: PlannedInsight): Fragment | null {
  if (query.sorted.sessionRestriction === null) return null
  if (query.sorted.sessionAttributes.length === 0) return sqlOnly(query.sorted.sessionRestriction)
  const matching = compileInner('insights/sessions-matching.sql', sessionParams(query), {
    attributes: attributeColumns(query.sorted.sessionAttributes),
    session_filters: attributeRestriction(query),
  })
  return { sql: `session_id IN (\n${matching.sql}\n)`, params: matching.params }
}

/** `session_id IN (...)` for sessions with an event matching every event-field filter, or null when there are none. */
export function sessionsWithEvent(query: PlannedInsight): Fragment | null {
  const events = eventConditions(query)
  if (!events) return null
  const subquery = compileInner('insights/sessions-with-event.sql', sessionParams(query), { event_filters: events })
  return { sql: `session_id IN (\n${subquery.sql}\n)`, params: subquery.params }
}

/**
 * Whether every event-field filter reads the page only (`origin`, `path`; none `name`), so that a settled
 * session's pages answer them (migrations/002_derived_tables.sql).
 */
const pageFiltered = (query: PlannedInsight): boolean => query.sorted.eventSelection !== null && !query.sorted.nameFiltered && query.sorted.viewConditionOnPage

/**
 * Whether each of a settled session's pages matches the page-only filters, as `page_matches`: one
 * evaluation per page, which the kept sessions' counted views reuse instead of evaluating the filters a
 * second time (docs/measurements.md, "Filters").
 */
const pageMatches = (condition: string) => `arrayMap((origin, path) -> ${condition}, page_origins, page_paths) AS page_matches`

/** The events of the window's sessions grouped by session (insights/session-events.sql), from `range` on. */
function sessionEvents(query: PlannedInsight, range: Fragment): Fragment {
  const events = eventConditions(query) ?? sqlOnly('1')
  const views = viewConditions(query) ?? sqlOnly('1')
  return compileInner('insights/session-events.sql', sessionParams(query), { event_filters: events, view_filters: views, event_range: range })
}

/** An INNER JOIN with the sessions of a session-events scan (`matched`), its parentheses indented by `indent`. */
const joinMatched = (scan: Fragment, indent = ''): Fragment => ({
  sql: `INNER JOIN\n${indent}(\n${scan.sql}\n${indent}) AS matched USING (session_id)`,
  params: scan.params,
})

/** How a settled session's pages and a regrouped session's events answer page-only event filters. */
interface PageFilters {
  views: Fragment
  match: Fragment
  join: Fragment
}

const NO_PAGE_FILTERS: PageFilters = { views: EMPTY, match: EMPTY, join: EMPTY }

/** The page-only event filters over the window's sessions, with `counted_views` (see window-sessions.sql). */
function pageFilters(query: PlannedInsight): PageFilters {
  const condition = query.sorted.eventSelection ?? '1'
  const regroupedEvents = sessionEvents(query, sqlOnly('\n  AND created_at >= regroup_from\n  AND created_at < regroup_to'))
  return {
    views: sqlOnly(`,\n    arraySum((matched, views) -> if(matched, views, 0), ${pageMatches(condition)}, page_views) AS counted_views`),
    match: sqlOnly('\n    AND has(page_matches, 1)'),
    join: joinMatched(regroupedEvents, '  '),
  }
}

/** The window's sessions (insights/window-sessions.sql) with `s_` columns for `attributes`, `pages` applied. */
function readWindowSessions(query: PlannedInsight, attributes: SessionField[], pages: PageFilters): Fragment {
  const all = [...attributes, ...query.sorted.sessionAttributes]
  const restrictions = sourceRestrictions(query)
  return compileInner('insights/window-sessions.sql', sessionParams(query), {
    settled_attributes: settledColumns(all),
    session_filters: restrictions.inSources,
    settled_page_views: pages.views,
    settled_page_match: pages.match,
    regrouped_sessions: regroupedSessions(query, all),
    regrouped_page_join: pages.join,
    kept_sessions: restrictions.overAll,
  })
}

/**
 * The window's sessions on the days regrouped from partial rows (insights/regrouped-sessions.sql), kept by
 * the attribute filters, with `s_` columns for `attributes`.
 */
export function regroupedSessions(query: PlannedInsight, attributes: SessionField[]): Fragment {
  return compileInner('insights/regrouped-sessions.sql', sessionParams(query), {
    attributes: attributeColumns(attributes),
    chosen_sessions: EMPTY,
    session_filters: sourceRestrictions(query).inSources,
  })
}

/**
 * The window's sessions kept by the attribute filters, with `s_` columns for `attributes` (and the
 * filters'). Event-field filters that read the page only apply here too, with `counted_views`; others
 * apply through `eventJoin`.
 */
export function windowSessions(query: PlannedInsight, attributes: SessionField[]): Fragment {
  return readWindowSessions(query, attributes, pageFiltered(query) ? pageFilters(query) : NO_PAGE_FILTERS)
}

/**
 * The window's sessions that `/pages` counts by entry page (pages.sql, `entries`): the sessions, their join
 * with the events under event filters, and which entry pages count. Under page-only event filters a session
 * whose entry page matches them is kept by them (its first event matches them), and only such pages have
 * page rows to join; so the sessions are read without those filters and the entry page decides (the same
 * rows; docs/measurements.md, "Pages").
 */
export function entrySessions(query: PlannedInsight): { sessions: Fragment; join: Fragment; match: Fragment } {
  const attributes: SessionAttribute[] = ['entry_origin', 'entry_path']
  if (pageFiltered(query) && query.sorted.eventSelection !== null) {
    return { sessions: readWindowSessions(query, attributes, NO_PAGE_FILTERS), join: EMPTY, match: sqlOnly(query.sorted.eventSelection) }
  }
  return { sessions: windowSessions(query, attributes), join: eventJoin(query).join, match: sqlOnly('1') }
}

/**
 * The event-field filters over the window's sessions: without any, no join and all page views count;
 * with some, an INNER JOIN keeping the sessions with a matching event, whose page views count only where
 * they match the filters other than `name` (`counted_views`). Filters that read the page only are
 * applied by `windowSessions`, which gives `counted_views` itself.
 */
export function eventJoin(query: PlannedInsight): { views: Fragment; join: Fragment } {
  const events = eventConditions(query)
  if (!events) return { views: sqlOnly('all_views'), join: EMPTY }
  const views = sqlOnly(viewConditions(query) ? 'counted_views' : 'all_views')
  if (pageFiltered(query)) return { views, join: EMPTY }
  const scan = sessionEvents(query, EMPTY)
  return { views, join: joinMatched(scan) }
}

/** Each settled session's viewed pages as sessions_settled holds them (migrations/002_derived_tables.sql). */
const SETTLED_PAGES = sqlOnly(',\n    page_origins,\n    page_paths,\n    page_views')

/**
 * The window's sessions kept by the filters, with `s_` columns for `attributes` and every page each viewed
 * with its views of it (`page_origins`, `page_paths`, `page_views`: a settled session's stored pages, a
 * regrouped one's from its events, insights/regrouped-pages.sql), and the join of the event-field filters
 * (every one through the events scan: the pages read here are all of a session's, whatever the filters).
 */
export function sessionsWithPages(query: PlannedInsight, attributes: SessionField[]): { sessions: Fragment; join: Fragment } {
  const pages: PageFilters = { views: SETTLED_PAGES, match: EMPTY, join: regroupedPagesJoin(query) }
  const join = eventConditions(query) ? joinMatched(sessionEvents(query, EMPTY)) : EMPTY
  return { sessions: readWindowSessions(query, attributes, pages), join }
}

/** A LEFT JOIN of the regrouped sessions with the pages they viewed (insights/regrouped-pages.sql). */
export function regroupedPagesJoin(query: PlannedInsight): Fragment {
  const viewed = compileInner('insights/regrouped-pages.sql', sessionParams(query))
  return { sql: `LEFT JOIN\n  (\n${viewed.sql}\n  ) AS viewed USING (session_id)`, params: viewed.params }
}

/** `AND ...` keeping settled sessions (sessions_settled's `s_` columns) by the attribute filters and `conditions`. */
export function settledRestriction(query: PlannedInsight, conditions: Fragment[]): Fragment {
  const restriction = orNull(query.sorted.sessionRestriction)
  return andClauses([...(restriction ? [restriction] : []), ...conditions], '      ')
}

/** `s_col` for each field, as sessions_settled holds them: the columns `attributeColumns` gives a regrouped session. */
export const storedColumns = (fields: SessionField[]): Fragment => settledColumns(fields)
