// `GET /insights/:projectId/sessions`: the window's sessions kept by the filters, newest start first (ties
// by session id, descending), as keyset pages: `{ meta: { nextCursor }, data }`. Each session once, as its
// combined rows give it (never a partial row on its own).
import type { Rows } from '../core/rows.generated'
import { compileTemplate } from '../core/compiled'
import type { Issue } from '../core/errors'
import { planSteps, type Resource } from '../core/pipeline'
import type { SessionField } from '../core/registry'
import { compileSchema } from '../core/validate'
import { performedInWith, sessionsWithEvent } from '../sessions/session-sets'
import { listedSessions } from '../sessions/sessions-page'
import { sessionSource, sessionStatement } from '../sessions/source'
import { decideFilters, pagedSchema, parseWithOwnParams, widenForSessions, type InsightQuery, type PlannedInsight } from './insight-params'

/** Where a page ends: the start (epoch ms) and id of its last session. */
export interface SessionKeyset {
  startMs: number
  id: string
}

export interface SessionsQuery extends InsightQuery {
  after?: SessionKeyset
}

type PlannedSessions = SessionsQuery & PlannedInsight

/** OpenPanel's default page (`zSessionsQuery`, apps/api/src/controllers/insights.controller.ts at ed7bdddb). */
const DEFAULT_LIMIT = 20
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
    if (!Number.isSafeInteger(startMs) || (startMs as number) < 0 || (startMs as number) >= LAST_MS || typeof id !== 'string')
      return undefined
    return { startMs: startMs as number, id }
  } catch {
    return undefined
  }
}

/** The limit and cursor, beside the shared parameters; a cursor this API did not issue is a problem too. */
const PAGE_PARAMS = {
  names: ['limit', 'cursor'],
  validator: validateOwn,
  read(own: Record<string, unknown>, issues: Issue[]) {
    const after = typeof own.cursor === 'string' ? decodeSessionCursor(own.cursor) : undefined
    if (typeof own.cursor === 'string' && !after) issues.push({ path: ['cursor'], message: '"cursor" is not a cursor this API issued' })
    return { limit: typeof own.limit === 'number' ? own.limit : DEFAULT_LIMIT, cursor: 1, after }
  },
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
  'referrer',
  'referrer_name',
  'referrer_type',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'entry_origin',
  'entry_path',
  'exit_origin',
  'exit_path',
]

/** A page of the list (insights/sessions-list.sql), its sessions from the wing. */
function compileSessions(query: PlannedSessions) {
  const source = sessionSource(query)
  const withEvent = sessionsWithEvent(source)
  // The fields shown, and those the filters read: a regrouped session is kept by its own columns.
  const listed = listedSessions(source, {
    columns: [...new Set([...LISTED, ...query.sorted.sessionAttributes])],
    conditions: withEvent ? [withEvent] : [],
    rowsToRead: query.limit + 1,
    readsEvents: withEvent !== null || query.sorted.restrictionReadsEvents,
  })
  return compileTemplate(
    'insights/sessions-list.sql',
    { ...listed.params, tz: query.timezone, afterMs: query.after?.startMs ?? LAST_MS, afterId: query.after?.id ?? '' },
    { performed_cte: performedInWith(source), listed_with: listed.with, listed_sessions: listed.sessions },
  )
}

export const sessionsList: Resource<SessionsQuery, PlannedSessions, Rows['insights/sessions-list.sql']> = {
  name: 'sessions',
  schema: sessionsSchema,
  parse: (raw, scope) => parseWithOwnParams(raw, scope, PAGE_PARAMS),
  plan: planSteps(endAtCursor, widenForSessions, decideFilters),
  ...sessionStatement(compileSessions),
  shape(rawRows, query) {
    const rows = rawRows
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
    return { body: { meta: { nextCursor }, data }, ...(nextCursor ? { next: { cursor: nextCursor } } : {}) }
  },
}
