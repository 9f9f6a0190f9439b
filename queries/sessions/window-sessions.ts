// The window's sessions, the wing's main relation: settled days read combined, the others regrouped from their
// partial rows (docs/design/sessions.md), kept by the filters, with the `s_` columns a route asks for, and the
// join of the event-field filters over them.
import { compileInner, fixedFragment, mergeParams, sqlOnly, type Fragment } from '../core/compiled'
import { sessionColumn, type SessionAttribute, type SessionField } from '../core/registry'
import { EMPTY, attributeColumns, attributeRestriction, eventConditions, viewConditions } from './session-sets'
import type { SessionQuestion } from './question'
import type { SessionSource } from './source'

/** `s_col` for each attribute: the same columns as `attributeColumns`, read from a combined session's row. */
export function storedColumns(attributes: readonly SessionField[]): Fragment {
  return sqlOnly([...new Set(attributes)].map((attribute) => `,\n  ${sessionColumn(attribute)}`).join(''))
}

/**
 * The window's sessions of the settled days (sessions/settled-sessions.sql), with `columns` after the
 * columns every session has and `conditions` after the window's, each list's fragments in order.
 */
export function settledSessions(source: SessionSource, columns: Fragment[], conditions: Fragment[]): Fragment {
  const joined = (parts: Fragment[]): Fragment => ({
    sql: parts.map((part) => part.sql).join(''),
    params: mergeParams(
      parts.map((part) => part.params),
      'settled sessions',
    ),
  })
  return compileInner('sessions/settled-sessions.sql', source.params, {
    settled_attributes: joined(columns),
    session_filters: joined(conditions),
  })
}

/**
 * The restriction placed in each source of the window's sessions (settled and regrouped), and the one
 * placed once over both. A restriction that reads sets built from events goes over both: TRICKY: the
 * engine builds such a set once per SELECT of a UNION ALL that reads it (on 10M events, one `IN` set read
 * by both branches took about twice the time of one read by one), but once for every place of one SELECT.
 */
function sourceRestrictions(source: SessionSource): { inSources: Fragment; overAll: Fragment } {
  const { restrictionReadsEvents, sessionRestriction } = source.question.sorted
  if (!restrictionReadsEvents || sessionRestriction === null) return { inSources: attributeRestriction(source.question), overAll: EMPTY }
  const kept = compileInner('sessions/kept-sessions.sql', source.params, { restriction: sqlOnly(sessionRestriction) })
  return { inSources: EMPTY, overAll: { sql: `\n${kept.sql}`, params: kept.params } }
}

/**
 * Whether every event-field filter reads the page only (`origin`, `path`; none `name`), so that a settled
 * session's pages answer them (migrations/002_derived_tables.sql).
 */
const pageFiltered = (question: SessionQuestion): boolean =>
  question.sorted.eventSelection !== null && !question.sorted.nameFiltered && question.sorted.viewConditionOnPage

/**
 * An INNER JOIN with the sessions that have an event matching the event-field filters, and their counted views
 * (sessions/session-events.sql), from `range` on.
 */
function matchedJoin(source: SessionSource, range: Fragment): Fragment {
  const events = eventConditions(source.question) ?? sqlOnly('1')
  const views = viewConditions(source.question) ?? sqlOnly('1')
  return compileInner('sessions/session-events.sql', source.params, { event_filters: events, view_filters: views, event_range: range })
}

/** How a settled session's pages and a regrouped session's events answer page-only event filters. */
interface PageFilters {
  views: Fragment
  match: Fragment
  join: Fragment
}

const NO_PAGE_FILTERS: PageFilters = { views: EMPTY, match: EMPTY, join: EMPTY }

/** The page-only event filters over the window's sessions, with `counted_views` (see window-sessions.sql). */
function pageFilters(source: SessionSource): PageFilters {
  const condition = source.question.sorted.eventSelection ?? '1'
  return {
    views: compileInner('sessions/counted-page-views.sql', source.params, { page_condition: sqlOnly(condition) }),
    match: fixedFragment('sessions/page-matched.sql', '    '),
    join: matchedJoin(source, fixedFragment('sessions/regrouped-range.sql', '  ')),
  }
}

/** The window's sessions (sessions/window-sessions.sql) with `s_` columns for `attributes`, `pages` applied. */
function readWindowSessions(source: SessionSource, attributes: readonly SessionField[], pages: PageFilters): Fragment {
  const all = [...attributes, ...source.question.sorted.sessionAttributes]
  const restrictions = sourceRestrictions(source)
  return compileInner('sessions/window-sessions.sql', source.params, {
    settled_sessions: settledSessions(source, [storedColumns(all), pages.views], [restrictions.inSources, pages.match]),
    regrouped_sessions: regroupedSessions(source, all),
    regrouped_page_join: pages.join,
    kept_sessions: restrictions.overAll,
  })
}

/**
 * The window's sessions on the days regrouped from partial rows (sessions/regrouped-sessions.sql), kept by
 * the attribute filters, with `s_` columns for `attributes`.
 */
export function regroupedSessions(source: SessionSource, attributes: readonly SessionField[]): Fragment {
  return compileInner('sessions/regrouped-sessions.sql', source.params, {
    attributes: attributeColumns(attributes),
    chosen_sessions: EMPTY,
    session_filters: sourceRestrictions(source).inSources,
  })
}

/**
 * The window's sessions kept by the attribute filters, with `s_` columns for `attributes` (and the
 * filters'). Event-field filters that read the page only apply here too, with `counted_views`; others
 * apply through `eventJoin`.
 */
export function windowSessions(source: SessionSource, attributes: readonly SessionField[]): Fragment {
  return readWindowSessions(source, attributes, pageFiltered(source.question) ? pageFilters(source) : NO_PAGE_FILTERS)
}

/**
 * The window's sessions that `/pages` counts by entry page (pages.sql, `entries`): the sessions, their join
 * with the events under event filters, and which entry pages count. Under page-only event filters a session
 * whose entry page matches them is kept by them (its first event matches them), and only such pages have
 * page rows to join; so the sessions are read without those filters and the entry page decides (the same
 * rows; docs/measurements.md, "Pages").
 */
export function entrySessions(source: SessionSource): { sessions: Fragment; join: Fragment; match: Fragment } {
  const attributes: SessionAttribute[] = ['entry_origin', 'entry_path']
  const { eventSelection } = source.question.sorted
  if (pageFiltered(source.question) && eventSelection !== null) {
    return { sessions: readWindowSessions(source, attributes, NO_PAGE_FILTERS), join: EMPTY, match: sqlOnly(eventSelection) }
  }
  return { sessions: windowSessions(source, attributes), join: eventJoin(source).join, match: sqlOnly('1') }
}

/**
 * The event-field filters over the window's sessions: without any, no join and all page views count;
 * with some, an INNER JOIN keeping the sessions with a matching event, whose page views count only where
 * they match the filters other than `name` (`counted_views`). Filters that read the page only are
 * applied by `windowSessions`, which gives `counted_views` itself.
 */
export function eventJoin(source: SessionSource): { views: Fragment; join: Fragment } {
  const { question } = source
  if (!eventConditions(question)) return { views: sqlOnly('all_views'), join: EMPTY }
  const views = sqlOnly(viewConditions(question) ? 'counted_views' : 'all_views')
  if (pageFiltered(question)) return { views, join: EMPTY }
  return { views, join: matchedJoin(source, EMPTY) }
}

/**
 * The window's sessions kept by the filters, with `s_` columns for `attributes` and every page each viewed
 * with its views of it (`page_origins`, `page_paths`, `page_views`: a settled session's stored pages, a
 * regrouped one's from its events, sessions/regrouped-pages.sql), and the join of the event-field filters
 * (every one through the events scan: the pages read here are all of a session's, whatever the filters).
 */
export function sessionsWithPages(source: SessionSource, attributes: readonly SessionField[]): { sessions: Fragment; join: Fragment } {
  const pages: PageFilters = { views: fixedFragment('sessions/settled-pages.sql'), match: EMPTY, join: regroupedPagesJoin(source) }
  const join = eventConditions(source.question) ? matchedJoin(source, EMPTY) : EMPTY
  return { sessions: readWindowSessions(source, attributes, pages), join }
}

/** A LEFT JOIN of the regrouped sessions with the pages they viewed (sessions/regrouped-pages.sql). */
export function regroupedPagesJoin(source: SessionSource): Fragment {
  return compileInner('sessions/regrouped-pages.sql', source.params)
}
