// The window's page views, as `/pages` reads them: the settled days' stored page views (page rows per session,
// page and quarter hour, or their rollup per page and hour; queries/sessions/reads.ts) and the other days'
// views ordered from the events, with which days are which.
import { assertNever } from '../core/errors'
import { compileInner, sqlOnly, type Fragment } from '../core/compiled'
import { combinedTable } from './combined-tables'
import type { PageReads } from './reads'
import { EMPTY, viewMatch } from './session-sets'
import type { SessionQuestion } from './question'
import type { SessionSource } from './source'

/** Where each kind of stored page view is read from: a closed table of the two, their time column and first views. */
const STORED_VIEWS = {
  settled: { table: combinedTable('page_views_settled').table, time: 'bucket', firstViews: 'sessions/first-view-rows.sql' },
  rollup: { table: combinedTable('page_rollup').table, time: 'hour', firstViews: 'sessions/first-view-rollup.sql' },
} as const satisfies Record<Exclude<PageReads, 'events'>, { table: string; time: string; firstViews: string }>

/** The stored page views of `kind` (sessions/stored-page-views.sql) matching `match`, their sessions kept by `sessions`. */
function storedViews(source: SessionSource, kind: keyof typeof STORED_VIEWS, parts: { match: Fragment; sessions: Fragment }): Fragment {
  const stored = STORED_VIEWS[kind]
  return compileInner('sessions/stored-page-views.sql', source.params, {
    first_views: compileInner(stored.firstViews, source.params),
    stored_table: sqlOnly(stored.table),
    stored_time: sqlOnly(stored.time),
    settled_view_match: parts.match,
    view_sessions: parts.sessions,
  })
}

/**
 * `view_days`, `view_compactions` and the range of views the statement orders itself (`order_from`,
 * `order_to`), and the stored views of those days, as pages.sql's `page_parts`: the page rollup (fewer rows,
 * the same answers; docs/measurements.md, "Pages") or the page rows, those kept by `sessions`. With `events`,
 * no day, and the rows with a condition that reads no view field.
 */
function storedPageViews(source: SessionSource, reads: PageReads, sessions: Fragment): { days: Fragment; pages: Fragment } {
  const settledDays = compileInner('sessions/view-days-settled.sql', source.params)
  switch (reads) {
    case 'events':
      return {
        days: compileInner('sessions/view-days-none.sql', source.params),
        pages: storedViews(source, 'settled', { match: sqlOnly('0'), sessions }),
      }
    case 'rollup':
      return { days: settledDays, pages: storedViews(source, 'rollup', { match: viewMatch(source.question), sessions: EMPTY }) }
    case 'settled':
      return { days: settledDays, pages: storedViews(source, 'settled', { match: viewMatch(source.question), sessions }) }
    default:
      return assertNever(reads)
  }
}

/**
 * What tells a session's pages apart as its views are ordered: the stored page key, with whether the view
 * counts only when a filter other than the page decides that (then two views of one page may differ).
 */
const pageIdentity = (question: SessionQuestion): Fragment =>
  sqlOnly(question.sorted.viewConditionOnPage ? 'page_key' : 'page_key, counted')

/**
 * The window's page views (sessions/window-page-views.sql) whose session passes the filters (`sessions`), and
 * `days`, the WITH items naming the days whose views come stored (`reads`) and the range the others are read
 * from.
 */
export function windowPageViews(
  source: SessionSource,
  { reads, sessions }: { reads: PageReads; sessions: Fragment },
): { days: Fragment; views: Fragment } {
  const stored = storedPageViews(source, reads, sessions)
  const views = compileInner('sessions/window-page-views.sql', source.params, {
    page_identity: pageIdentity(source.question),
    view_match: viewMatch(source.question),
    settled_pages: stored.pages,
    view_sessions: sessions,
  })
  return { days: stored.days, views }
}
