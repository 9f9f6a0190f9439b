// `GET /insights/:projectId/pages`: page rows per (origin, path) of the window's page views.
import { assertNever } from '../core/errors'
import { andClauses, compileInner, compileTemplate, sqlOnly, type Fragment } from '../core/compiled'
import { decideFilters, widenForSessions, withSettled, type PlannedInsight } from './insight-params'
import { pageOrder, pageSearch, pagesSchema, parsePagesParams, type PagesQuery } from './page-order'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, type Resource } from '../core/pipeline'
import { decidePageReads, type PageReads } from '../core/reads'
import { percent, ratioOrNull } from '../core/rounding'
import { entrySessions, performedInWith, sessionParams, sessionsMatchingAttributes, sessionsWithEvent, settledCheck, viewConditions } from './session-sql'

/** A pages request after its plan: what its settled page views are read from decided (core/reads.ts). */
type PlannedPages = PagesQuery & PlannedInsight & { reads: PageReads }

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
const viewMatch = (query: PlannedInsight): Fragment => viewConditions(query) ?? sqlOnly('1')

/**
 * What tells a session's pages apart in pages.sql: the stored page key, with whether the view counts only
 * when a filter other than the page decides that (then two views of one page may differ).
 */
const pageIdentity = (query: PlannedInsight): Fragment => sqlOnly(query.sorted.viewConditionOnPage ? 'page_key' : 'page_key, counted')

/**
 * `AND ...` keeping views whose session passes the filters: its attributes pass, and it has an event
 * matching every event-field filter. Sets, not joins, and nothing at all without filters. Without a
 * `name` filter a counted view is itself such an event (it matches every event-field filter, in the
 * window), so its session is not looked up: the same rows, without building the set
 * (docs/measurements.md, "Pages").
 */
function viewSessions(query: PlannedInsight): Fragment {
  const withEvent = query.sorted.nameFiltered ? sessionsWithEvent(query) : null
  const parts = [sessionsMatchingAttributes(query), withEvent].filter((part): part is Fragment => part !== null)
  return andClauses(parts, '      ')
}

/**
 * `view_days`, `view_compactions` and the range of views ordered in the statement (pages.sql) when stored
 * page views answer: the settled days, and the range the others are regrouped from (core/settled-days.ts,
 * SettledParams).
 */
const SETTLED_VIEW_DAYS = sqlOnly(`{settledDays:Array(Date)} AS view_days,
  CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS view_compactions,
  {regroupFrom:DateTime64(3, 'UTC')} AS order_from,
  {regroupTo:DateTime64(3, 'UTC')} AS order_to`)

/** The same when none answer: no day, and every view of the read range ordered in the statement. */
const NO_VIEW_DAYS = sqlOnly(`CAST([], 'Array(Date)') AS view_days,
  CAST([], 'Array(UInt64)') AS view_compactions,
  {readFrom:DateTime64(3, 'UTC')} AS order_from,
  {readTo:DateTime64(3, 'UTC')} AS order_to`)

/**
 * The settled days whose stored page views answer (`reads`, core/reads.ts), and those views: the page
 * rollup (fewer rows, the same answers; docs/measurements.md, "Pages") or the page rows. With `events`, no
 * day, and the rows with a condition that reads no view field.
 */
function settledPages(query: PlannedPages, sessions: Fragment): { days: Fragment; pages: Fragment } {
  const context = sessionParams(query)
  switch (query.reads) {
    case 'events':
      return { days: NO_VIEW_DAYS, pages: compileInner('insights/pages-settled-rows.sql', context, { settled_view_match: sqlOnly('0'), view_sessions: sessions }) }
    case 'rollup':
      return { days: SETTLED_VIEW_DAYS, pages: compileInner('insights/pages-settled-rollup.sql', context, { settled_view_match: viewMatch(query) }) }
    case 'settled':
      return { days: SETTLED_VIEW_DAYS, pages: compileInner('insights/pages-settled-rows.sql', context, { settled_view_match: viewMatch(query), view_sessions: sessions }) }
    default:
      return assertNever(query.reads)
  }
}

export const pages: Resource<PagesQuery, PlannedPages> = {
  name: 'pages',
  schema: pagesSchema,
  parse: parsePagesParams,
  plan: planSteps(widenForSessions, decideFilters, decidePageReads),
  settledCheck,
  compile(planned, settled) {
    const query = withSettled(planned, settled)
    const sessions = viewSessions(query)
    const stored = settledPages(query, sessions)
    const entries = entrySessions(query)
    return compileTemplate(
      'insights/pages.sql',
      { ...sessionParams(query), ...pageParams(query) },
      {
        performed_cte: performedInWith(query),
        settled_views: stored.days,
        settled_pages: stored.pages,
        window_sessions: entries.sessions,
        entry_join: entries.join,
        entry_match: entries.match,
        view_match: viewMatch(query),
        page_identity: pageIdentity(query),
        view_sessions: sessions,
        page_search: pageSearch(query),
        page_order: pageOrder(query),
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
