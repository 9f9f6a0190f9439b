// `GET /insights/:projectId/profiles/:profileId/sessions`: the profile's sessions, newest first, `limit` a
// page, as a bare array of OpenPanel's session rows; the next page's keyset cursor in `Link`.
import { compileTemplate } from '../core/compiled'
import { type Issue, invalid } from '../core/errors'
import { planSteps, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { compileSchema, schemaIssues } from '../core/validate'
import { cursorProperty, decodeKeyset, KEYSET_LAST, type Keyset, keysetPage } from './keyset'
import { profileIdProperty } from './profile'

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['profileId'],
  properties: {
    profileId: profileIdProperty,
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    cursor: cursorProperty,
  },
}
const validateParams = compileSchema(schema, { coerce: true })

export interface ProfileSessionsQuery {
  projectId: string
  profileId: string
  limit: number
  after: Keyset
}

export const profileSessions: Resource<ProfileSessionsQuery, ProfileSessionsQuery, Rows['people/profile-sessions.sql']> = {
  name: 'profile sessions',
  schema,
  parse(raw, scope) {
    const issues: Issue[] = schemaIssues(validateParams, raw)
    const after = typeof raw.cursor === 'string' ? decodeKeyset(raw.cursor, issues) : undefined
    if (issues.length) throw invalid(issues)
    return { projectId: scope.project.id, profileId: String(raw.profileId), limit: Number(raw.limit), after: after ?? KEYSET_LAST }
  },
  plan: planSteps((query: ProfileSessionsQuery) => query),
  compile(query) {
    return compileTemplate('people/profile-sessions.sql', {
      projectId: query.projectId,
      profileId: query.profileId,
      afterMs: query.after.ms,
      afterId: query.after.id,
      rows: query.limit + 1,
    })
  },
  shape(rows, query) {
    const { page, nextCursor } = keysetPage(rows, query.limit, (row) => ({ ms: Number(row.start_ms), id: row.id }))
    const body = page.map(({ start_ms: _keyset, ...session }) => ({
      ...session,
      event_count: Number(session.event_count),
      screen_view_count: Number(session.screen_view_count),
      is_bounce: Boolean(session.is_bounce),
      duration: Number(session.duration),
      revenue: Number(session.revenue),
    }))
    return { body, hasMore: nextCursor !== undefined, ...(nextCursor === undefined ? {} : { next: { cursor: nextCursor } }) }
  },
}
