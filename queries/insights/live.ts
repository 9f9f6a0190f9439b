// `GET /insights/:projectId/live`: distinct visitors with any event in the last five minutes.
import { compileTemplate } from '../core/compiled'
import { planSteps, toClickHouseTime, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { assertValid, compileSchema } from '../core/validate'

const LIVE_WINDOW_MS = 5 * 60 * 1000

interface LiveQuery {
  projectId: string
  now: Date
}

/** Planned: the start of the last five minutes. */
interface LiveWindow extends LiveQuery {
  since: Date
}

const schema = { type: 'object', additionalProperties: false, properties: {} }
const validateParams = compileSchema(schema)

const resolveLiveWindow = (query: LiveQuery): LiveWindow => ({ ...query, since: new Date(query.now.getTime() - LIVE_WINDOW_MS) })

export const live: Resource<LiveQuery, LiveWindow, Rows['insights/live.sql']> = {
  name: 'live',
  schema,
  // Five minutes of events at most, whatever the request: it never waits behind a heavy statement.
  lane: 'bounded',
  parse(raw, scope) {
    assertValid(validateParams, raw)
    return { projectId: scope.project.id, now: scope.now }
  },
  plan: planSteps(resolveLiveWindow),
  compile(query) {
    return compileTemplate('insights/live.sql', {
      projectId: query.projectId,
      since: toClickHouseTime(query.since),
      now: toClickHouseTime(query.now),
    })
  },
  shape(rows) {
    return { body: { visitors: Number(rows[0]?.visitors ?? 0) } }
  },
}
