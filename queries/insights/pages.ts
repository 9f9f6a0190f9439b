// `GET /insights/:projectId/pages`: page rows per (origin, path) of the window's page views.
import { andClauses, compileTemplate, sqlOnly, type Fragment } from '../core/compiled'
import { decideFilters, parseInsightParams, pagedSchema, widenForSessions, type InsightQuery, type PlannedInsight } from './insight-params'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, type Resource } from '../core/pipeline'
import { percent, ratioOrNull } from '../core/rounding'
import { eventJoin, sessionParams, sessionsMatchingAttributes, sessionsWithEvent, settledDays, viewConditions, windowSessions } from './session-sql'

const QUARTER_HOUR_MS = 900_000
const onQuarterHour = (date: Date) => date.getTime() % QUARTER_HOUR_MS === 0

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
 * The settled days whose page rows (a row per session, page and quarter hour) answer exactly, and the
 * rows' view condition: all of them when the window's bounds fall on quarter hours and the view filters
 * read the page only; else none, and a condition that reads no view field.
 */
function settledViews(query: PlannedInsight): { days: Fragment; match: Fragment } {
  const rowsAnswer = onQuarterHour(query.window.start) && onQuarterHour(query.window.end) && query.sorted.viewConditionOnPage
  if (!rowsAnswer) return { days: sqlOnly("CAST([], 'Array(Date)')"), match: sqlOnly('0') }
  return { days: sqlOnly('settled_days'), match: viewMatch(query) }
}

/**
 * `AND ...` keeping views whose session passes the filters: its attributes pass, and it has an event
 * matching every event-field filter. Sets, not joins, and nothing at all without filters. Without a
 * `name` filter a counted view is itself such an event (it matches every event-field filter, in the
 * window), so its session is not looked up: on 10M events, a 30-day `path contains` answer took
 * 1.1-1.5 s with the set and 0.58-0.74 s without it, with the same rows.
 */
function viewSessions(query: PlannedInsight): Fragment {
  const withEvent = query.sorted.nameFiltered ? sessionsWithEvent(query) : null
  const parts = [sessionsMatchingAttributes(query), withEvent].filter((part): part is Fragment => part !== null)
  return andClauses(parts, '      ')
}

export const pages: Resource<InsightQuery, PlannedInsight> = {
  name: 'pages',
  schema: pagedSchema,
  parse: (raw, scope) => parseInsightParams(raw, scope, 'paged'),
  plan: planSteps(widenForSessions, decideFilters),
  compile(query) {
    const settled = settledViews(query)
    return compileTemplate(
      'insights/pages.sql',
      { ...sessionParams(query), ...pageParams(query) },
      {
        settled_days: settledDays(query),
        settled_view_days: settled.days,
        settled_view_match: settled.match,
        window_sessions: windowSessions(query, ['entry_origin', 'entry_path']),
        entry_join: eventJoin(query).join,
        view_match: viewMatch(query),
        view_sessions: viewSessions(query),
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
