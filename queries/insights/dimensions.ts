// The breakdown resources (`/referrer`, `/country`, ...): one shared template, one registry entry each;
// breakdowns of one window, filters and page that wait together run as one statement.
import { compileTemplate, sqlOnly, type CompiledQuery } from '../core/compiled'
import { decideFilters, parseInsightParams, pagedSchema, widenForSessions, type InsightQuery, type PlannedInsight } from './insight-params'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, type Joins, type Resource } from '../core/pipeline'
import { DIMENSIONS, SESSION_ATTRIBUTES, type Dimension, type DimensionSpec, type SessionAttribute } from '../core/registry'
import { percent, ratio } from '../core/rounding'
import { eventJoin, regroupedSessions, sessionParams, settledCheck, unfiltered, windowSessions } from './session-sql'
import { HOUR_MS, onMultipleOf } from '../core/dates'

interface DimensionRow {
  prefix_value: string
  name_value: string
  session_count: number
  view_count: number
  bounced: number
  duration_total_ms: number
}

const specOf = (name: Dimension): DimensionSpec => DIMENSIONS[name]
const columnOf = (attribute: SessionAttribute) => `s_${SESSION_ATTRIBUTES[attribute]}`

/** The attributes a breakdown groups by: its column, then its prefix (if any). */
function attributesOf(name: Dimension): SessionAttribute[] {
  const { column, prefix } = specOf(name)
  return prefix ? [column, prefix] : [column]
}

/**
 * Whether the settled days' sessions may be read counted per breakdown value and hour (session_rollup):
 * no filter keeps a session out, and the window's bounds fall on whole hours, as the hours' bounds do.
 */
const readsRollup = (query: PlannedInsight): boolean =>
  unfiltered(query) && onMultipleOf(query.window.start, HOUR_MS) && onMultipleOf(query.window.end, HOUR_MS)

/**
 * The statement of breakdowns that read session_rollup (`readsRollup`): one (`dimension-rollup.sql`), or
 * several asked together (`dimension-sets-rollup.sql`).
 */
function compileRollup(names: Dimension[], query: PlannedInsight): CompiledQuery {
  const params = { ...sessionParams(query), ...pageParams(query) }
  const regrouped = regroupedSessions(query, [...new Set(names.flatMap(attributesOf))])
  const prefixOf = (name: Dimension) => {
    const { prefix } = specOf(name)
    return prefix ? columnOf(prefix) : "''"
  }
  // The names are the registry's keys, written as text: bound, they would tell apart the params of
  // breakdowns that can run together (queries/core/joined-runs.ts keys batches by them).
  const nameText = (name: Dimension) => `'${name}'`
  if (names.length === 1) {
    return compileTemplate('insights/dimension-rollup.sql', params, {
      dimension: sqlOnly(nameText(names[0])),
      prefix: sqlOnly(prefixOf(names[0])),
      name: sqlOnly(columnOf(specOf(names[0]).column)),
      regrouped_sessions: regrouped,
    })
  }
  return compileTemplate('insights/dimension-sets-rollup.sql', params, {
    dimensions: sqlOnly(names.map(nameText).join(', ')),
    members: sqlOnly(names.map((name, index) => `(${index}, ${prefixOf(name)}, ${columnOf(specOf(name).column)})`).join(', ')),
    regrouped_sessions: regrouped,
  })
}

/** A breakdown's statement, or several breakdowns' (their grouping sets, `dimension-sets.sql`). */
function compileDimensions(names: Dimension[], query: PlannedInsight): CompiledQuery {
  if (readsRollup(query)) return compileRollup(names, query)
  const { views, join } = eventJoin(query)
  const params = { ...sessionParams(query), ...pageParams(query) }
  const attributes = [...new Set(names.flatMap(attributesOf))]
  const shared = { window_sessions: windowSessions(query, attributes), views, views_join: join }
  const prefixOf = (name: Dimension) => specOf(name).prefix
  if (names.length === 1) {
    const prefix = prefixOf(names[0])
    return compileTemplate('insights/dimension.sql', params, {
      prefix: sqlOnly(prefix ? columnOf(prefix) : "''"),
      name: sqlOnly(columnOf(specOf(names[0]).column)),
      ...shared,
    })
  }
  // GROUPING(...) of every column: a bit per column, most significant first, 1 where the set leaves it out.
  const columns = attributes.map(columnOf)
  const grouping = `GROUPING(${columns.join(', ')})`
  const members = names.map((name, index) => ({ name, index, prefix: prefixOf(name), own: attributesOf(name).map(columnOf) }))
  const maskOf = (own: string[]) => columns.reduce((mask, column) => mask * 2 + (own.includes(column) ? 0 : 1), 0)
  const prefixed = members.flatMap(({ index, prefix }) => (prefix ? [`member = ${index}, ${columnOf(prefix)}`] : []))
  return compileTemplate('insights/dimension-sets.sql', params, {
    member: sqlOnly(`multiIf(${members.map(({ own, index }) => `${grouping} = ${maskOf(own)}, ${index}`).join(', ')}, ${names.length})`),
    prefix: sqlOnly(prefixed.length ? `multiIf(${prefixed.join(', ')}, '')` : "''"),
    name: sqlOnly(`multiIf(${members.map(({ name, index }) => `member = ${index}, ${columnOf(specOf(name).column)}`).join(', ')}, '')`),
    grouping_sets: sqlOnly(members.map(({ own }) => `(${own.join(', ')})`).join(', ')),
    ...shared,
  })
}

/** Breakdowns of one window, filters and page, asked together: one statement (queries/core/joined-runs.ts). */
const breakdownsTogether: Joins<PlannedInsight> = {
  family: 'insights.dimension',
  key: (query) => JSON.stringify(query),
  rows: (query) => pageParams(query).rowsToRead,
  compile: (members) => compileDimensions(members.map((member) => member.resource as Dimension), members[0].query),
}

function dimensionResource(name: Dimension): Resource<InsightQuery, PlannedInsight> {
  const spec = specOf(name)
  return {
    name,
    schema: pagedSchema,
    joins: breakdownsTogether,
    parse: (raw, scope) => parseInsightParams(raw, scope, 'paged'),
    plan: planSteps(widenForSessions, decideFilters),
    compile: (query) => ({ ...compileDimensions([name], query), settledCheck: settledCheck(query) }),
    shape(rawRows, query) {
      const { page, hasMore } = splitPage(rawRows as unknown as DimensionRow[], query)
      const body = page.map((row) => {
        const sessions = Number(row.session_count)
        return {
          ...(spec.prefix ? { prefix: row.prefix_value === '' ? null : row.prefix_value } : {}),
          name: row.name_value === '' ? null : row.name_value,
          sessions,
          pageviews: Number(row.view_count),
          bounce_rate: percent(Number(row.bounced), sessions),
          avg_session_duration: ratio(Number(row.duration_total_ms), sessions * 1000),
        }
      })
      return { body, hasMore }
    },
  }
}

export const dimensions: Resource<InsightQuery, PlannedInsight>[] = (Object.keys(DIMENSIONS) as Dimension[]).map(dimensionResource)
