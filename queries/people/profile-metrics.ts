// `GET /insights/:projectId/profiles/:profileId/metrics`: a profile's metrics as OpenPanel names them
// (docs/definitions.md, "People"); a profile without a row has null first and last seen, as in OpenPanel.
import { compileTemplate } from '../core/compiled'
import { planSteps, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { assertValid, compileSchema } from '../core/validate'
import { profileIdProperty } from './profile'

const schema = { type: 'object', additionalProperties: false, required: ['profileId'], properties: { profileId: profileIdProperty } }
const validateParams = compileSchema(schema, { coerce: true })

export interface ProfileMetricsQuery {
  projectId: string
  profileId: string
}

export const profileMetrics: Resource<ProfileMetricsQuery, ProfileMetricsQuery, Rows['people/profile-metrics.sql']> = {
  name: 'profile metrics',
  schema,
  parse(raw, scope) {
    const { profileId } = assertValid(validateParams, raw) as { profileId: string }
    return { projectId: scope.project.id, profileId }
  },
  plan: planSteps((query: ProfileMetricsQuery) => query),
  compile(query) {
    return compileTemplate('people/profile-metrics.sql', { projectId: query.projectId, profileId: query.profileId })
  },
  shape(rows, query) {
    const row = rows[0]
    const avgEventsPerSession = row.avgEventsPerSession
    return {
      body: {
        profileId: query.profileId,
        firstSeen: row.firstSeen,
        lastSeen: row.lastSeen,
        sessions: Number(row.sessions),
        screenViews: Number(row.screenViews),
        totalEvents: Number(row.totalEvents),
        conversionEvents: Number(row.conversionEvents),
        uniqueDaysActive: Number(row.uniqueDaysActive),
        avgSessionDurationMin: Number(row.avgSessionDurationMin),
        p90SessionDurationMin: Number(row.p90SessionDurationMin),
        avgEventsPerSession: avgEventsPerSession === null ? null : Number(avgEventsPerSession),
        avgTimeBetweenSessionsSec: Number(row.avgTimeBetweenSessionsSec),
        bounceRate: Number(row.bounceRate),
        revenue: Number(row.revenue),
      },
    }
  },
}
