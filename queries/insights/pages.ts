// `GET /insights/:projectId/pages`: page rows per (origin, path) of the window's page views.
import type { Rows } from '../core/rows.generated'
import { andClauses, compileTemplate, type Fragment } from '../core/compiled'
import { decideFilters, widenForSessions, type PlannedInsight } from './insight-params'
import { pageOrder, pageSearch, pagesSchema, parsePagesParams, type PagesQuery } from './page-order'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, type Resource } from '../core/pipeline'
import { percent, ratioOrNull } from '../core/rounding'
import { windowPageViews } from '../sessions/page-views'
import { decidePageReads, type PageReads } from '../sessions/reads'
import { performedInWith, sessionsMatchingAttributes, sessionsWithEvent } from '../sessions/session-sets'
import { sessionSource, sessionStatement, type SessionSource } from '../sessions/source'
import { entrySessions } from '../sessions/window-sessions'
import { pageCompare } from './insight-compare'

/** A pages request after its plan: what its settled page views are read from decided (core/reads.ts). */
type PlannedPages = PagesQuery & PlannedInsight & { reads: PageReads }

/**
 * `AND ...` keeping views whose session passes the filters: its attributes pass, and it has an event
 * matching every event-field filter. Sets, not joins, and nothing at all without filters. Without a
 * `name` filter a counted view is itself such an event (it matches every event-field filter, in the
 * window), so its session is not looked up: the same rows, without building the set
 * (docs/measurements.md, "Pages").
 */
function viewSessions(source: SessionSource): Fragment {
  const withEvent = source.question.sorted.nameFiltered ? sessionsWithEvent(source) : null
  const parts = [sessionsMatchingAttributes(source), withEvent].filter((part): part is Fragment => part !== null)
  return andClauses(parts, '      ')
}

/** A pages request's statement (insights/pages.sql), its page views and entry sessions from the wing. */
function compilePages(query: PlannedPages) {
  const source = sessionSource(query)
  const sessions = viewSessions(source)
  const views = windowPageViews(source, { reads: query.reads, sessions })
  const entries = entrySessions(source)
  return compileTemplate(
    'insights/pages.sql',
    { ...source.params, ...pageParams(query) },
    {
      performed_cte: performedInWith(source),
      views_with: views.days,
      page_views: views.views,
      window_sessions: entries.sessions,
      entry_join: entries.join,
      entry_match: entries.match,
      page_search: pageSearch(query),
      page_order: pageOrder(query),
    },
  )
}

export const pages: Resource<PagesQuery, PlannedPages, Rows['insights/pages.sql']> = {
  name: 'pages',
  schema: pagesSchema,
  parse: parsePagesParams,
  plan: planSteps(widenForSessions, decideFilters, decidePageReads),
  ...sessionStatement(compilePages),
  shape(rawRows, query) {
    const { page, hasMore } = splitPage(rawRows, query)
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
  compare: pageCompare('pages', ['sessions', 'pageviews', 'bounce_rate', 'avg_duration']),
}
