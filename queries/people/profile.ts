// `GET /insights/:projectId/profiles/:profileId`: `{ profile, recentEvents }` as OpenPanel answers it, the
// profile's newest version and its newest `eventLimit` events; an unknown profile is a 404.
import { compileTemplate } from '../core/compiled'
import { QueryError } from '../core/errors'
import { planSteps, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { assertValid, compileSchema } from '../core/validate'
import { profileRow } from './profile-rows'

export const profileIdProperty = { type: 'string', minLength: 1, maxLength: 200, description: "The profile's id" }

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['profileId'],
  properties: {
    profileId: profileIdProperty,
    eventLimit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'How many of the newest events' },
  },
}
const validateParams = compileSchema(schema, { coerce: true })

export interface ProfileQuery {
  projectId: string
  profileId: string
  eventLimit: number
}

export const profile: Resource<ProfileQuery, ProfileQuery, Rows['people/profile.sql']> = {
  name: 'profile',
  schema,
  // One profile's versions and its newest events: read by key prefix and in key order, bounded by the limit.
  lane: 'bounded',
  parse(raw, scope) {
    const params = assertValid(validateParams, raw) as { profileId: string; eventLimit: number }
    return { projectId: scope.project.id, profileId: params.profileId, eventLimit: params.eventLimit }
  },
  plan: planSteps((query: ProfileQuery) => query),
  compile(query) {
    return compileTemplate('people/profile.sql', { projectId: query.projectId, profileId: query.profileId })
  },
  alongside(query) {
    return { recentEvents: compileTemplate('people/profile-events.sql', { ...query }) }
  },
  shape(rows, query, others) {
    const [found] = rows
    if (!found) throw new QueryError('not_found', `Profile not found: ${query.profileId}`)
    return { body: { profile: profileRow(found), recentEvents: others?.recentEvents ?? [] } }
  },
}
