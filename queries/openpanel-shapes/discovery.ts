// The discovery routes in OpenPanel's shapes (apps/api/src/controllers/insights.controller.ts at ed7bdddb):
// `/events/names` an array of names, `/events/properties` `{ columns, properties }` with a row per key and
// event name, `/events/property_values` `{ event, property, values }`, which `detail=true` answers as Quarry's
// rows. OpenPanel's shape keeps OpenPanel's defaults too: the whole history, and its lists' lengths
// (packages/db/src/services/event.service.ts: 50 names, 500 keys, 200 values). The objects carry each row's
// count beside OpenPanel's fields; a next page is in the `Link` header either way.
import { FIRST_YEAR } from '../core/dates'
import { asksDetail, briefUnlessDetailed, eitherByDetail } from '../core/detail'
import type { Answer, Resource } from '../core/pipeline'
import { EVENT_FIELDS, SESSION_ATTRIBUTES, SESSION_ONLY_ATTRIBUTES } from '../core/registry'
import { eventNames, eventProperties, eventPropertyPairs, eventPropertyValues, type DiscoveryQuery } from '../discovery/discovery'

/** The columns an event is filtered by (OpenPanel's `columns`): its own fields but its name, and its session's attributes. */
export const EVENT_COLUMNS: readonly string[] = [
  ...Object.keys(EVENT_FIELDS).filter((field) => field !== 'name'),
  ...Object.keys(SESSION_ATTRIBUTES).filter((field) => !(SESSION_ONLY_ATTRIBUTES as readonly string[]).includes(field)),
]

/** The first day a window takes, in the request's timezone: OpenPanel's lists read the whole history. */
const HISTORY_START = `${FIRST_YEAR}-01-01`

/**
 * `resource` with OpenPanel's defaults where it answers OpenPanel's shape (no `detail=true`, no `compare`): the
 * window from `HISTORY_START` when the request names no `startDate` nor `range`, and `limit` rows a page.
 */
function withOpenPanelDefaults<P, Q>(resource: Resource<P, Q>, limit: number): Resource<P, Q> {
  const { properties, ...rest } = resource.schema as { properties: Record<string, object> }
  const { default: _range, ...range } = properties.range as { default?: string }
  const quarrys = 'with detail=true or compare'
  return {
    ...resource,
    schema: {
      ...rest,
      properties: {
        ...properties,
        range: { ...range, description: `Absent with no startDate: every day since ${HISTORY_START} (7d ${quarrys})` },
        limit: { ...properties.limit, default: limit, description: `Rows a page (10 ${quarrys})` },
      },
    },
    parse(raw, scope) {
      if (asksDetail(raw) || raw.compare !== undefined) return resource.parse(raw, scope)
      const dated = raw.startDate === undefined && raw.range === undefined ? { startDate: HISTORY_START } : {}
      return resource.parse({ limit, ...raw, ...dated }, scope)
    },
  }
}

const rowsOf = <Row>(answer: Answer) => answer.body as Row[]

export const openPanelEventNames = withOpenPanelDefaults(
  briefUnlessDetailed(eventNames, (answer) => ({
    ...answer,
    body: rowsOf<{ name: string }>(answer).map((row) => row.name),
  })),
  50,
)

/** OpenPanel's key list: `{ columns, properties }`, a row per key and event name, with its events. */
const propertyPairs: typeof eventPropertyPairs = {
  ...eventPropertyPairs,
  shape(rows, query, others) {
    const answer = eventPropertyPairs.shape(rows, query, others)
    return { ...answer, body: { columns: EVENT_COLUMNS, properties: answer.body } }
  },
}

export const openPanelEventProperties = eitherByDetail({
  name: 'events/properties',
  brief: withOpenPanelDefaults(propertyPairs, 500) as Resource<unknown, unknown>,
  detailed: eventProperties as Resource<unknown, unknown>,
})

export const openPanelEventPropertyValues = withOpenPanelDefaults(
  briefUnlessDetailed(eventPropertyValues, (answer, query: DiscoveryQuery) => {
    const rows = rowsOf<{ value: string; count: number }>(answer)
    return {
      ...answer,
      body: { event: query.event || null, property: query.key, values: rows.map((row) => row.value), counts: rows.map((row) => row.count) },
    }
  }),
  200,
)
