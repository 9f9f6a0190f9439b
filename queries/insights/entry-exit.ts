// `GET /insights/:projectId/pages/entry_exit?mode=entry|exit`: the window's kept sessions per entry page
// (the first event's origin and path) or exit page (the last page view's), with the exit rate of each exit
// page: its exits over its views in the same sessions.
import { compileInner, compileTemplate, sqlOnly, type CompiledQuery, type Params } from '../core/compiled'
import { invalid, QueryError, type Issue } from '../core/errors'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, toClickHouseTime, type Resource, type Scope } from '../core/pipeline'
import { decideSessionReads, type SessionReads } from '../core/reads'
import { DAY_MS } from '../core/dates'
import { percent, ratio } from '../core/rounding'
import { compileSchema, schemaIssues } from '../core/validate'
import { decideFilters, pagedSchema, parseInsightParams, widenForSessions, withSettled, type InsightQuery, type PlannedInsight } from './insight-params'
import { eventJoin, performedWith, regroupedPagesJoin, regroupedSessions, sessionParams, sessionsWithPages, settledCheck, windowSessions } from './session-sql'

export const ENTRY_EXIT_MODES = ['entry', 'exit'] as const
export type EntryExitMode = (typeof ENTRY_EXIT_MODES)[number]

export interface EntryExitQuery extends InsightQuery {
  mode: EntryExitMode
}

/** Entry or exit pages after their plan: what their settled sessions are read from decided (core/reads.ts). */
type PlannedEntryExit = EntryExitQuery & PlannedInsight & { reads: SessionReads }

const modeProperties = {
  mode: { type: 'string', enum: ENTRY_EXIT_MODES, description: "`entry`: sessions by the page they entered on; `exit`: by the page of their last page view" },
}

export const entryExitSchema = { ...pagedSchema, required: ['mode'], properties: { ...pagedSchema.properties, ...modeProperties } }

const validateMode = compileSchema({ type: 'object', required: ['mode'], properties: modeProperties })

/** Parses the request; every problem, of the shared parameters and of the mode, is in one 400. */
function parseEntryExit(raw: Record<string, unknown>, scope: Scope): EntryExitQuery {
  const { mode, ...shared } = raw
  const own: Record<string, unknown> = mode === undefined ? {} : { mode }
  const issues: Issue[] = schemaIssues(validateMode, own)
  let query: InsightQuery | undefined
  try {
    query = parseInsightParams(shared, scope, 'paged')
  } catch (error) {
    if (!(error instanceof QueryError) || error.code !== 'invalid_request') throw error
    issues.unshift(...error.issues)
  }
  if (issues.length || !query) throw invalid(issues)
  return { ...query, mode: own.mode as EntryExitMode }
}

/**
 * The window's whole UTC days, [wholeFrom, wholeTo): the first midnight at or after its start to the last at
 * or before its end; with none, both are its end, so every hour of the window is read by the hour.
 */
export function wholeDays(window: { start: Date; end: Date }): { wholeFrom: string; wholeTo: string } {
  const from = Math.ceil(window.start.getTime() / DAY_MS) * DAY_MS
  const to = Math.floor(window.end.getTime() / DAY_MS) * DAY_MS
  const [wholeFrom, wholeTo] = from < to ? [from, to] : [window.end.getTime(), window.end.getTime()]
  return { wholeFrom: toClickHouseTime(new Date(wholeFrom)), wholeTo: toClickHouseTime(new Date(wholeTo)) }
}

/**
 * The session rollup's rows of the page members `dimensions`, by the day over the window's whole days and by
 * the hour over the rest (insights/session-rollup-days.sql); with several, each told by its index as `member`.
 * `params` are the statement's, the whole days' bounds among them.
 */
function rollupRows(params: Params, dimensions: string[]) {
  const names = (suffix: string) => dimensions.map((dimension) => `'${dimension}${suffix}'`).join(', ')
  const member = dimensions.length > 1 ? `\n  toUInt32(indexOf([${names('')}], dimension) + indexOf([${names('_day')}], dimension) - 1) AS member,` : ''
  return compileInner('insights/session-rollup-days.sql', params, {
    member: sqlOnly(member),
    dimensions: sqlOnly(names('')),
    day_dimensions: sqlOnly(names('_day')),
  })
}

/** Entry pages: a breakdown by the entry page (insights/dimension.sql), the entry origin its prefix. */
function compileEntries(query: PlannedEntryExit): CompiledQuery {
  const params = { ...sessionParams(query), ...pageParams(query) }
  const page = { prefix: sqlOnly('s_entry_origin'), name: sqlOnly('s_entry_path') }
  if (query.reads === 'rollup') {
    const rollup = { ...params, ...wholeDays(query.window) }
    return compileTemplate('insights/dimension-rollup.sql', rollup, {
      rollup_rows: rollupRows(rollup, ['entry_page']),
      regrouped_sessions: regroupedSessions(query, ['entry_origin', 'entry_path']),
      ...page,
    })
  }
  const { views, join } = eventJoin(query)
  return compileTemplate('insights/dimension.sql', params, {
    performed_with: performedWith(query),
    window_sessions: windowSessions(query, ['entry_origin', 'entry_path']),
    views,
    views_join: join,
    ...page,
  })
}

/** Exit pages with the views of each page in the same sessions (insights/exit-pages.sql, exit-pages-rollup.sql). */
function compileExits(query: PlannedEntryExit): CompiledQuery {
  const params = { ...sessionParams(query), ...pageParams(query) }
  if (query.reads === 'rollup') {
    const rollup = { ...params, ...wholeDays(query.window) }
    return compileTemplate('insights/exit-pages-rollup.sql', rollup, {
      rollup_rows: rollupRows(rollup, ['exit_page', 'page_views']),
      regrouped_sessions: regroupedSessions(query, ['exit_origin', 'exit_path']),
      regrouped_page_join: regroupedPagesJoin(query),
    })
  }
  const { sessions, join } = sessionsWithPages(query, ['exit_origin', 'exit_path'])
  return compileTemplate('insights/exit-pages.sql', params, { performed_with: performedWith(query), window_sessions: sessions, views_join: join })
}

interface EntryRow {
  prefix_value: string
  name_value: string
  session_count: number
  bounced: number
  duration_total_ms: number
}

interface ExitRow {
  page_origin: string
  page_path: string
  session_count: number
  bounced: number
  duration_total_ms: number
  view_count: number
}

export const entryExit: Resource<EntryExitQuery, PlannedEntryExit> = {
  name: 'pages/entry_exit',
  schema: entryExitSchema,
  parse: parseEntryExit,
  plan: planSteps(widenForSessions, decideFilters, decideSessionReads),
  settledCheck,
  compile: (query, settled) => (query.mode === 'entry' ? compileEntries(withSettled(query, settled)) : compileExits(withSettled(query, settled))),
  shape(rawRows, query) {
    if (query.mode === 'entry') {
      const { page, hasMore } = splitPage(rawRows as unknown as EntryRow[], query)
      const body = page.map((row) => {
        const sessions = Number(row.session_count)
        return {
          origin: row.prefix_value,
          path: row.name_value,
          sessions,
          bounce_rate: percent(Number(row.bounced), sessions),
          avg_session_duration: ratio(Number(row.duration_total_ms), sessions * 1000),
        }
      })
      return { body, hasMore }
    }
    const { page, hasMore } = splitPage(rawRows as unknown as ExitRow[], query)
    const body = page.map((row) => {
      const sessions = Number(row.session_count)
      return {
        origin: row.page_origin,
        path: row.page_path,
        sessions,
        bounce_rate: percent(Number(row.bounced), sessions),
        avg_session_duration: ratio(Number(row.duration_total_ms), sessions * 1000),
        exit_rate: percent(sessions, Number(row.view_count)),
      }
    })
    return { body, hasMore }
  },
}
