// The discovery routes in OpenPanel's shapes (apps/api/src/controllers/insights.controller.ts at ed7bdddb):
// `/events/names` an array of names, `/events/properties` `{ columns, properties }`, `/events/property_values`
// `{ event, property, values }`, each from Quarry's page of rows, which `detail=true` answers as it is. The
// objects carry each row's count beside OpenPanel's fields; a next page is in the `Link` header either way.
import { briefUnlessDetailed } from '../core/detail'
import type { Answer } from '../core/pipeline'
import { EVENT_FIELDS, SESSION_ATTRIBUTES, SESSION_ONLY_ATTRIBUTES } from '../core/registry'
import { eventNames, eventProperties, eventPropertyValues, type DiscoveryQuery } from '../discovery/discovery'

/** The columns an event is filtered by (OpenPanel's `columns`): its own fields but its name, and its session's attributes. */
export const EVENT_COLUMNS: readonly string[] = [
  ...Object.keys(EVENT_FIELDS).filter((field) => field !== 'name'),
  ...Object.keys(SESSION_ATTRIBUTES).filter((field) => !(SESSION_ONLY_ATTRIBUTES as readonly string[]).includes(field)),
]

const rowsOf = <Row>(answer: Answer) => answer.body as Row[]

export const openPanelEventNames = briefUnlessDetailed(eventNames, (answer) => ({
  ...answer,
  body: rowsOf<{ name: string }>(answer).map((row) => row.name),
}))

export const openPanelEventProperties = briefUnlessDetailed(eventProperties, (answer, query: DiscoveryQuery) => ({
  ...answer,
  body: {
    columns: EVENT_COLUMNS,
    // OpenPanel's keys are bare; Quarry counts a key over the asked name's events, or every name's (then `event_name` is null).
    properties: rowsOf<{ key: string; count: number }>(answer).map((row) => ({
      property_key: row.key.slice('properties.'.length),
      event_name: query.event || null,
      count: row.count,
    })),
  },
}))

export const openPanelEventPropertyValues = briefUnlessDetailed(eventPropertyValues, (answer, query: DiscoveryQuery) => {
  const rows = rowsOf<{ value: string; count: number }>(answer)
  return {
    ...answer,
    body: { event: query.event || null, property: query.key, values: rows.map((row) => row.value), counts: rows.map((row) => row.count) },
  }
})
