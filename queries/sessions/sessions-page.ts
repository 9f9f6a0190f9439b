// The sessions of a sessions list's page: the settled days' sessions read backwards from the keyset, and the
// regrouped days' page chosen first and combined alone (sessions/listed-sessions.sql), for a route template
// that names them in its WITH (`listed_with`) and reads their rows (`listed_sessions`).
import { compileInner, fixedFragment, type Fragment, type Params } from '../core/compiled'
import { DAY_MS } from '../core/dates'
import type { SessionField } from '../core/registry'
import { EMPTY, attributeColumns, attributeRestriction } from './session-sets'
import type { SessionSource } from './source'
import { settledSessions, storedColumns } from './window-sessions'

/** What a list's page asks of the wing. */
export interface ListedPage {
  /** The fields a listed session shows, and those its filters read, as `s_` columns. */
  columns: readonly SessionField[]
  /** Further conditions a listed session passes (on session_id), beside the attribute filters. */
  conditions: Fragment[]
  /** The rows each part reads: one page plus one row. */
  rowsToRead: number
  /** Whether a condition reads events (a set of sessions built from them): then the read range is bound. */
  readsEvents: boolean
}

/** The listed sessions: what the statement's WITH names, their rows, and the params the two read. */
export interface ListedSessions {
  with: Fragment
  sessions: Fragment
  params: Params
}

/**
 * Whether the settled days are the first of the window's days (none counts), so that every regrouped
 * session starts on a later UTC day than every settled one.
 */
function settledFirst(params: Params): boolean {
  const first = Date.parse(String(params.firstDay))
  return [...(params.settledDays as string[])].sort().every((day, index) => Date.parse(day) === first + index * DAY_MS)
}

/**
 * The params of the settled part alone: the window, its days and their compactions, and the filters' values;
 * the read range too when a condition reads events.
 */
function settledPartParams(source: SessionSource, readsEvents: boolean): Params {
  const { projectId, start, end, firstDay, lastDay, settledCompactions, readFrom, readTo } = source.params
  const range: Params = readsEvents ? { readFrom, readTo } : {}
  return { projectId, start, end, firstDay, lastDay, settledCompactions, ...range, ...source.question.sorted.params }
}

/**
 * The page's sessions. Every day up to the keyset settled: the settled part alone, no partial row to regroup.
 * Otherwise `newest` (sessions/sessions-list-newest.sql) chooses the regrouped page among the partial rows
 * first, those sessions are combined with the columns shown (sessions/regrouped-sessions.sql), and the settled
 * part is read only while the regrouped page is short when the settled days come first.
 */
export function listedSessions(source: SessionSource, page: ListedPage): ListedSessions {
  const { question, params } = source
  const context = { ...params, rowsToRead: page.rowsToRead }
  // The page's statement binds its rows too: its fragments may read them.
  const paged: SessionSource = { question, params: context }
  const settled = (conditions: Fragment[]): Fragment =>
    settledSessions(
      paged,
      [storedColumns(page.columns), fixedFragment('sessions/listed-stored.sql')],
      [compileInner('sessions/listed-keyset.sql', context, { session_filters: attributeRestriction(question, conditions, '      ') })],
    )
  if (params.regroupFrom === params.regroupTo) {
    return {
      with: compileInner('sessions/listed-settled.sql', context, { newest_sessions: EMPTY }),
      sessions: compileInner('sessions/listed-sessions.sql', context, {
        settled_sessions: settled(page.conditions),
        regrouped_sessions: EMPTY,
      }),
      params: { ...settledPartParams(source, page.readsEvents), rowsToRead: page.rowsToRead },
    }
  }
  const newest = compileInner('sessions/sessions-list-newest.sql', context, {
    attributes: attributeColumns([...new Set(question.sorted.sessionAttributes)]),
    session_filters: attributeRestriction(question, page.conditions),
  })
  const regrouped = compileInner('sessions/regrouped-sessions.sql', context, {
    attributes: { sql: attributeColumns(page.columns).sql + fixedFragment('sessions/listed-combined.sql').sql, params: {} },
    chosen_sessions: fixedFragment('sessions/chosen-sessions.sql', '  '),
    session_filters: EMPTY,
  })
  const short = settledFirst(params) ? [compileInner('sessions/regrouped-page-short.sql', context)] : []
  return {
    with: compileInner('sessions/listed-settled.sql', context, { newest_sessions: newest }),
    sessions: compileInner('sessions/listed-sessions.sql', context, {
      settled_sessions: settled([...page.conditions, ...short]),
      regrouped_sessions: compileInner('sessions/listed-regrouped.sql', context, { regrouped_sessions: regrouped }),
    }),
    params: context,
  }
}
