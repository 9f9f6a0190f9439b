// `GET /insights/:projectId/sessions`: the window's sessions kept by the filters, newest start first (ties
// by session id, descending), as keyset pages: `{ meta: { nextCursor }, data }`. Each session once, as its
// combined rows give it (never a partial row on its own).
import { andClauses, compileInner, compileTemplate, sqlOnly, type Fragment, type Params } from '../core/compiled'
import { invalid, QueryError, type Issue } from '../core/errors'
import { planSteps, type Resource, type Scope } from '../core/pipeline'
import { DAY_MS } from '../core/dates'
import type { SessionField } from '../core/registry'
import { compileSchema, schemaIssues } from '../core/validate'
import { decideFilters, pagedSchema, parseInsightParams, widenForSessions, withSettled, type InsightQuery, type PlannedInsight } from './insight-params'
import { attributeColumns, performedInWith, sessionParams, sessionsWithEvent, settledCheck, settledRestriction, storedColumns } from './session-sql'

/** Where a page ends: the start (epoch ms) and id of its last session. */
export interface SessionKeyset {
  startMs: number
  id: string
}

export interface SessionsQuery extends InsightQuery {
  after?: SessionKeyset
}

type PlannedSessions = SessionsQuery & PlannedInsight

const DEFAULT_LIMIT = 50
/** The keyset before every session: DateTime64(3) stops at 2299. */
const LAST_MS = Date.parse('2299-12-31T00:00:00Z')

const ownProperties = {
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: DEFAULT_LIMIT },
  cursor: { type: 'string', minLength: 1, description: "The previous page's meta.nextCursor" },
}

const { cursor: _pageNumber, limit: _rows, ...sharedProperties } = pagedSchema.properties
export const sessionsSchema = { ...pagedSchema, properties: { ...sharedProperties, ...ownProperties } }

const validateOwn = compileSchema({ type: 'object', properties: ownProperties })

export function encodeSessionCursor(keyset: SessionKeyset): string {
  return Buffer.from(JSON.stringify([keyset.startMs, keyset.id])).toString('base64url')
}

function decodeSessionCursor(text: string): SessionKeyset | undefined {
  try {
    const [startMs, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[]
    if (!Number.isSafeInteger(startMs) || (startMs as number) < 0 || (startMs as number) >= LAST_MS || typeof id !== 'string') return undefined
    return { startMs: startMs as number, id }
  } catch {
    return undefined
  }
}

/** Parses the request; every problem, of the shared parameters and of the limit and cursor, is in one 400. */
function parseSessions(raw: Record<string, unknown>, scope: Scope): SessionsQuery {
  const { limit, cursor, ...shared } = raw
  const own: Record<string, unknown> = Object.fromEntries(Object.entries({ limit, cursor }).filter(([, value]) => value !== undefined))
  const issues: Issue[] = schemaIssues(validateOwn, own)
  const after = typeof own.cursor === 'string' ? decodeSessionCursor(own.cursor) : undefined
  if (typeof own.cursor === 'string' && !after) issues.push({ path: ['cursor'], message: '"cursor" is not a cursor this API issued' })
  let query: InsightQuery | undefined
  try {
    query = parseInsightParams(shared, scope, 'paged')
  } catch (error) {
    if (!(error instanceof QueryError) || error.code !== 'invalid_request') throw error
    issues.unshift(...error.issues)
  }
  if (issues.length || !query) throw invalid(issues)
  return { ...query, limit: typeof own.limit === 'number' ? own.limit : DEFAULT_LIMIT, cursor: 1, after }
}

/**
 * Plan step: a page after a cursor holds only sessions that start at or before the cursor's, so the window
 * ends there; a deep page then neither checks nor regroups the days after it.
 */
function endAtCursor(query: SessionsQuery): SessionsQuery {
  if (!query.after) return query
  const start = query.window.start.getTime()
  const end = Math.max(start + 1, Math.min(query.window.end.getTime(), query.after.startMs + 1))
  return { ...query, window: { start: query.window.start, end: new Date(end) } }
}

/** The session fields a listed session shows, as `s_` columns. */
const LISTED: SessionField[] = [
  'referrer', 'referrer_name', 'referrer_type', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content',
  'country', 'region', 'city', 'device', 'browser', 'os', 'entry_origin', 'entry_path', 'exit_origin', 'exit_path',
]

/** A regrouped session's visitor id and events, after its `s_` columns: as sessions_settled stores them (migrations/002_derived_tables.sql). */
const REGROUPED_EXTRA = sqlOnly(',\n  argMin(profile_id, first_event_key) AS visitor_id,\n  sum(event_count) AS all_events')

/** The keyset condition over a combined or regrouped session. */
const BEFORE_CURSOR = sqlOnly('(session_start, session_id) < (after_start, after_id)')

interface SessionRow {
  id: string
  profileId: string
  startedAt: string
  endedAt: string
  start_ms: number | string
  duration_ms: number | string
  screen_views: number | string
  event_total: number | string
  exitOrigin: string
  exitPath: string
  [field: string]: unknown
}

/**
 * The partial rows of the sessions `newest` chose, so that the many fields a listed session shows are
 * combined for one page of sessions, not for every session of the regrouped days. TRICKY: a session's
 * partial rows all start at or after the session's start, so every row of a chosen session lies from
 * `newest.2` on: the read keeps only that end of the sort key's range (bounded by its day too, the key's
 * first time column), and each chosen session is still whole.
 */
const CHOSEN_SESSIONS = sqlOnly('\n  AND toDate(started_at) >= toDate(newest.2)\n  AND started_at >= newest.2\n  AND has(newest.1, session_key)')

/**
 * The regrouped part of a page: `newest`, the keys and earliest start of its regrouped sessions (chosen by
 * their start, id and the columns the filters read, insights/sessions-list-newest.sql, kept by the
 * filters, `conditions` and the keyset), for the statement's WITH; and those sessions combined with
 * `columns` and the visitor id and events (insights/regrouped-sessions.sql over the chosen sessions' rows),
 * in UNION ALL after the settled ones.
 */
function regroupedPage(query: PlannedSessions, params: Params, columns: SessionField[], conditions: Fragment[]): { newest: Fragment; union: Fragment } {
  const restriction = query.sorted.sessionRestriction === null ? [] : [sqlOnly(query.sorted.sessionRestriction)]
  const chosen = compileInner('insights/sessions-list-newest.sql', params, {
    attributes: attributeColumns([...new Set(query.sorted.sessionAttributes)]),
    session_filters: andClauses([...restriction, ...conditions, BEFORE_CURSOR]),
  })
  const page = compileInner('insights/regrouped-sessions.sql', params, {
    attributes: { sql: attributeColumns(columns).sql + REGROUPED_EXTRA.sql, params: {} },
    chosen_sessions: CHOSEN_SESSIONS,
    session_filters: sqlOnly(''),
  })
  return {
    newest: { sql: `,\n  (\n    SELECT (groupArray(session_key), min(session_start))\n    FROM\n    (\n${chosen.sql}\n    )\n  ) AS newest`, params: chosen.params },
    union: { sql: `\n\n  UNION ALL\n\n  SELECT *\n  FROM\n  (\n${page.sql}\n  )`, params: page.params },
  }
}

/**
 * Whether the settled days are the first of the window's days (none counts), so that every regrouped
 * session starts on a later UTC day than every settled one.
 */
function settledFirst(params: Params): boolean {
  const first = Date.parse(String(params.firstDay))
  return [...(params.settledDays as string[])].sort().every((day, index) => Date.parse(day) === first + index * DAY_MS)
}

/** Keeps the settled part from being read when the regrouped page is full: those sessions all come first. */
const REGROUPED_PAGE_SHORT = sqlOnly('length(newest.1) < {rowsToRead:UInt32}')

/** The params a statement without regrouped sessions leaves unread: the regrouped range and days, and the read range unless an event filter reads events. */
function settledOnly(params: Params, readsEvents: boolean): Params {
  const { regroupFrom: _from, regroupTo: _to, settledDays: _days, readFrom, readTo, ...rest } = params
  return readsEvents ? { ...rest, readFrom, readTo } : rest
}

export const sessionsList: Resource<SessionsQuery, PlannedSessions> = {
  name: 'sessions',
  schema: sessionsSchema,
  parse: parseSessions,
  plan: planSteps(endAtCursor, widenForSessions, decideFilters),
  settledCheck,
  compile(planned, settled) {
    const query = withSettled(planned, settled)
    const withEvent = sessionsWithEvent(query)
    const conditions: Fragment[] = withEvent ? [withEvent] : []
    // The fields shown, and those the filters read: a regrouped session is kept by its own columns.
    const columns = [...new Set([...LISTED, ...query.sorted.sessionAttributes])]
    const params = sessionParams(query)
    const page = { tz: query.timezone, rowsToRead: query.limit + 1, afterMs: query.after?.startMs ?? LAST_MS, afterId: query.after?.id ?? '' }
    // Every day up to the keyset settled: no partial row to regroup, and no regrouped part to plan.
    if (params.regroupFrom === params.regroupTo) {
      return compileTemplate(
        'insights/sessions-list.sql',
        { ...settledOnly(params, withEvent !== null || query.sorted.restrictionReadsEvents), ...page },
        {
          performed_cte: performedInWith(query),
          newest_sessions: sqlOnly(''),
          settled_attributes: storedColumns(columns),
          session_filters: settledRestriction(query, conditions),
          regrouped_sessions: sqlOnly(''),
        },
      )
    }
    const regrouped = regroupedPage(query, { ...params, ...page }, columns, conditions)
    const settledConditions = settledFirst(params) ? [...conditions, REGROUPED_PAGE_SHORT] : conditions
    return compileTemplate(
      'insights/sessions-list.sql',
      { ...params, ...page },
      {
        performed_cte: performedInWith(query),
        newest_sessions: regrouped.newest,
        settled_attributes: storedColumns(columns),
        session_filters: settledRestriction(query, settledConditions),
        regrouped_sessions: regrouped.union,
      },
    )
  },
  shape(rawRows, query) {
    const rows = rawRows as unknown as SessionRow[]
    const page = rows.slice(0, query.limit)
    const data = page.map(({ start_ms: _start, duration_ms, screen_views, event_total, exitOrigin, exitPath, ...fields }) => {
      const screenViews = Number(screen_views)
      return {
        id: fields.id,
        profileId: fields.profileId,
        startedAt: fields.startedAt,
        endedAt: fields.endedAt,
        duration: Number(duration_ms) / 1000,
        screenViews,
        events: Number(event_total),
        bounce: screenViews <= 1,
        entryOrigin: fields.entryOrigin,
        entryPath: fields.entryPath,
        exitOrigin: screenViews ? exitOrigin : null,
        exitPath: screenViews ? exitPath : null,
        referrer: fields.referrer,
        referrerName: fields.referrerName,
        referrerType: fields.referrerType,
        utmSource: fields.utmSource,
        utmMedium: fields.utmMedium,
        utmCampaign: fields.utmCampaign,
        utmTerm: fields.utmTerm,
        utmContent: fields.utmContent,
        country: fields.country,
        region: fields.region,
        city: fields.city,
        device: fields.device,
        browser: fields.browser,
        os: fields.os,
      }
    })
    const last = page.at(-1)
    const nextCursor = rows.length > query.limit && last ? encodeSessionCursor({ startMs: Number(last.start_ms), id: last.id }) : null
    return { body: { meta: { nextCursor }, data } }
  },
}
