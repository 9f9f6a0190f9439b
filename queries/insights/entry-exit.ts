// `GET /insights/:projectId/pages/entry_exit?mode=entry|exit`: the window's kept sessions per entry page
// (the first event's origin and path) or exit page (the last page view's), with the exit rate of each exit
// page: its exits over its views in the same sessions. OpenPanel's route, so OpenPanel's default window: the
// 30 days before today when the request names none.
import type { Rows } from '../core/rows.generated'
import { compileInner, compileTemplate, sqlOnly, type CompiledQuery } from '../core/compiled'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, type Resource } from '../core/pipeline'
import { percent, ratio } from '../core/rounding'
import { compileSchema } from '../core/validate'
import { decideSessionReads, type SessionReads } from '../sessions/reads'
import { pageRollupRows } from '../sessions/rollup-rows'
import { performedWith } from '../sessions/session-sets'
import { sessionSource, sessionStatement } from '../sessions/source'
import { eventJoin, regroupedPagesJoin, regroupedSessions, sessionsWithPages, windowSessions } from '../sessions/window-sessions'
import { keptKeysCondition } from '../core/compare'
import { OPENPANEL_DEFAULT_DAYS, openpanelDateProperties, withOpenPanelWindow } from '../openpanel/adapt'
import { KEY_COLUMNS, pageCompare } from './insight-compare'
import {
  comparedSchema,
  decideFilters,
  parseWithOwnParams,
  widenForSessions,
  type InsightQuery,
  type PlannedInsight,
} from './insight-params'

export const ENTRY_EXIT_MODES = ['entry', 'exit'] as const
export type EntryExitMode = (typeof ENTRY_EXIT_MODES)[number]

export interface EntryExitQuery extends InsightQuery {
  mode: EntryExitMode
}

/** Entry or exit pages after their plan: what their settled sessions are read from decided (core/reads.ts). */
type PlannedEntryExit = EntryExitQuery & PlannedInsight & { reads: SessionReads }

const modeProperties = {
  mode: {
    type: 'string',
    enum: ENTRY_EXIT_MODES,
    default: 'entry',
    description: "`entry` (OpenPanel's default): sessions by the page they entered on; `exit`: by the page of their last page view",
  },
}

export const entryExitSchema = {
  ...comparedSchema,
  properties: {
    ...comparedSchema.properties,
    range: {
      ...openpanelDateProperties.range,
      description: `Absent with no startDate: from the local day ${OPENPANEL_DEFAULT_DAYS} days before today (OpenPanel's default)`,
    },
    ...modeProperties,
  },
}

const validateMode = compileSchema({ type: 'object', properties: modeProperties })

/** The mode, beside the shared parameters: every problem of both is in one 400. */
const MODE_PARAM = {
  names: ['mode'],
  validator: validateMode,
  read: (own: Record<string, unknown>) => ({ mode: own.mode as EntryExitMode }),
}

/** Entry pages: a breakdown by the entry page (insights/dimension.sql), the entry origin its prefix. */
function compileEntries(query: PlannedEntryExit): CompiledQuery {
  const source = sessionSource(query)
  const params = { ...source.params, ...pageParams(query) }
  const page = { prefix: sqlOnly('s_entry_origin'), name: sqlOnly('s_entry_path') }
  if (query.reads === 'rollup') {
    const counts = compileInner('insights/rollup-counts.sql', params, {
      rollup_rows: pageRollupRows(source, ['entry_page']),
      member: sqlOnly(''),
      regrouped_sessions: regroupedSessions(source, ['entry_origin', 'entry_path']),
      member_join: sqlOnly(''),
      ...page,
    })
    return compileTemplate('insights/dimension-rollup.sql', params, {
      rollup_counts: counts,
      kept_keys: keptKeysCondition(query.kept, KEY_COLUMNS, '\nHAVING'),
    })
  }
  const { views, join } = eventJoin(source)
  const counts = compileInner('insights/kept-counts.sql', params, {
    window_sessions: windowSessions(source, ['entry_origin', 'entry_path']),
    views,
    views_join: join,
  })
  return compileTemplate('insights/dimension.sql', params, {
    performed_with: performedWith(source),
    kept_counts: counts,
    kept_keys: keptKeysCondition(query.kept, KEY_COLUMNS, '\nHAVING'),
    ...page,
  })
}

/** Exit pages with the views of each page in the same sessions (insights/exit-pages.sql, exit-pages-rollup.sql). */
function compileExits(query: PlannedEntryExit): CompiledQuery {
  const source = sessionSource(query)
  const params = { ...source.params, ...pageParams(query) }
  const kept_keys = keptKeysCondition(query.kept, ['page_origin', 'page_path'], ' AND')
  if (query.reads === 'rollup') {
    return compileTemplate('insights/exit-pages-rollup.sql', params, {
      kept_keys,
      rollup_rows: pageRollupRows(source, ['exit_page', 'page_views']),
      regrouped_sessions: regroupedSessions(source, ['exit_origin', 'exit_path']),
      exit_items: compileInner('insights/exit-items.sql', params, { views_join: regroupedPagesJoin(source) }),
    })
  }
  const { sessions, join } = sessionsWithPages(source, ['exit_origin', 'exit_path'])
  const items = compileInner('insights/exit-items.sql', params, { views_join: join })
  return compileTemplate('insights/exit-pages.sql', params, {
    kept_keys,
    performed_with: performedWith(source),
    window_sessions: sessions,
    exit_items: items,
  })
}

/** Entry pages compare their sessions by entry page; exit pages theirs, and the exit rate, by exit page. */
const ENTRY_COMPARE = pageCompare<EntryExitQuery, PlannedEntryExit>('entry', ['sessions', 'bounce_rate', 'avg_session_duration'])
const EXIT_COMPARE = pageCompare<EntryExitQuery, PlannedEntryExit>('exit', ['sessions', 'bounce_rate', 'avg_session_duration', 'exit_rate'])

/** An entry page's row (insights/dimension.sql; its rollup twin returns the same columns). */
type EntryRow = Rows['insights/dimension.sql']
/** An exit page's row (insights/exit-pages.sql; its rollup twin returns the same columns). */
type ExitRow = Rows['insights/exit-pages.sql']

/** An entry or exit page's sessions as the answer gives them: the page, its sessions, their bounce rate and mean duration. */
function pageSessions(page: { origin: string; path: string }, row: { session_count: number; bounced: number; duration_total_ms: number }) {
  const sessions = Number(row.session_count)
  return {
    ...page,
    sessions,
    bounce_rate: percent(Number(row.bounced), sessions),
    avg_session_duration: ratio(Number(row.duration_total_ms), sessions * 1000),
  }
}

export const entryExit: Resource<EntryExitQuery, PlannedEntryExit, EntryRow | ExitRow> = {
  name: 'pages/entry_exit',
  schema: entryExitSchema,
  parse: (raw, scope) => parseWithOwnParams(withOpenPanelWindow(raw, scope), scope, MODE_PARAM, 'compared'),
  plan: planSteps(widenForSessions, decideFilters, decideSessionReads),
  ...sessionStatement((query: PlannedEntryExit) => (query.mode === 'entry' ? compileEntries(query) : compileExits(query))),
  shape(rawRows, query) {
    if (query.mode === 'entry') {
      // The mode picked the statement (compileEntries), so the rows are an entry statement's.
      const { page, hasMore } = splitPage(rawRows as readonly EntryRow[], query)
      return { body: page.map((row) => pageSessions({ origin: row.prefix_value, path: row.name_value }, row)), hasMore }
    }
    const { page, hasMore } = splitPage(rawRows as readonly ExitRow[], query)
    const body = page.map((row) => ({
      ...pageSessions({ origin: row.page_origin, path: row.page_path }, row),
      exit_rate: percent(Number(row.session_count), Number(row.view_count)),
    }))
    return { body, hasMore }
  },
  compare: {
    asked: (query) => query,
    question: (options) => (options.planned.mode === 'entry' ? ENTRY_COMPARE : EXIT_COMPARE).question(options),
    merge: (body, previous, query) => (query.mode === 'entry' ? ENTRY_COMPARE : EXIT_COMPARE).merge(body, previous, query),
  },
}
