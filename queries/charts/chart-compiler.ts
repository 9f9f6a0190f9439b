// The chart compiler: every series item of a request (and its breakdown groups and previous window)
// compiles to ONE statement, a UNION ALL of per-item GROUP BYs. Pure: no I/O.
import { bucketExpression } from '../core/buckets'
import { andClauses, compileInner, compileTemplate, mergeParams, sqlOnly, type CompiledQuery, type Fragment, type Params } from '../core/compiled'
import type { Breakdown, ChartQuery, EventItem, FieldSource, NumericSource, PlannedChart, PlannedEventItem } from './chart-params'
import { assertNever } from '../core/errors'
import { compileAll, isNumberText } from '../core/filters'
import { toClickHouseTime } from '../core/pipeline'
import { windowParams } from '../core/window-params'

/** The params every item reads, bound once by the statement: the window, the previous one's start, the timezone. */
function chartParams(query: ChartQuery): Params {
  return {
    ...windowParams(query.projectId, query.window),
    from: toClickHouseTime((query.previousWindow ?? query.window).start),
    tz: query.timezone,
  }
}

/** Gives an item's own params the item's prefix (`s0_...`) so items never collide; the statement's stay. */
function prefixParams(fragment: Fragment, prefix: string, shared: Params): Fragment {
  const rename = (name: string) => (name in shared ? name : `${prefix}_${name}`)
  return {
    sql: fragment.sql.replace(/\{(\w+):([^{}]+?)\}/g, (_, name: string, type: string) => `{${rename(name)}:${type}}`),
    params: Object.fromEntries(Object.entries(fragment.params).map(([name, value]) => [rename(name), value])),
  }
}

function fieldExpression(source: FieldSource, param: string, params: Params): string {
  switch (source.kind) {
    case 'column':
      return `toString(${source.column})`
    case 'property':
      params[param] = source.key
      return `properties[{${param}:String}]`
    default:
      return assertNever(source)
  }
}

function labelsExpression(breakdowns: Breakdown[], params: Params): string {
  if (breakdowns.length === 0) return 'CAST([], \'Array(String)\')'
  return `[${breakdowns.map((breakdown, index) => fieldExpression(breakdown.source, `b${index}_key`, params)).join(', ')}]`
}

/** The numeric value of a property segment: a numeric column, or a property that is a number (else NULL). */
function numberExpression(source: NumericSource, params: Params): string {
  switch (source.kind) {
    case 'column':
      return `toFloat64(${source.column})`
    case 'property':
      params.property_key = source.key
      return `if(${isNumberText('properties[{property_key:String}]')}, toFloat64OrZero(properties[{property_key:String}]), NULL)`
    default:
      return assertNever(source)
  }
}

/**
 * The segment's aggregate (and the ARRAY JOIN the `group` segment reads through). By the hour, a column's
 * sum is the integer sum the projection holds: the same value as the sum of its Float64 values below 2^53.
 */
function aggregateOf(item: EventItem, params: Params, hourly: boolean): { aggregate: string; arrayJoin: string } {
  const plain = (aggregate: string) => ({ aggregate, arrayJoin: '' })
  // Read from the rows, distinct users and sessions are counted over the keys stored with each event
  // (migrations/001_source_tables.sql), the hashes uniqExact keeps of the strings; by the hour, over the
  // strings, as the projection's states are.
  const users = hourly ? 'uniqExact(profile_id)' : 'uniqExact(profile_key)'
  switch (item.segment) {
    case 'event':
      return plain('count()')
    case 'user':
    case 'one_event_per_user':
      return plain(users)
    case 'session':
      return plain(hourly ? 'uniqExact(session_id)' : 'uniqExact(session_key)')
    case 'group':
      return { aggregate: 'uniqExact(group_id)', arrayJoin: ' ARRAY JOIN groups AS group_id' }
    case 'user_average':
      return plain(`count() / ${users}`)
    case 'property_sum':
      if (hourly && item.property.kind === 'column') return plain(`sum(${item.property.column})`)
      return plain(`ifNull(sum(${numberExpression(item.property, params)}), 0)`)
    case 'property_average':
      return plain(`ifNull(avg(${numberExpression(item.property, params)}), 0)`)
    case 'property_min':
      return plain(`ifNull(min(${numberExpression(item.property, params)}), 0)`)
    case 'property_max':
      return plain(`ifNull(max(${numberExpression(item.property, params)}), 0)`)
    default:
      return assertNever(item)
  }
}

/** `AND ...`: the item's event name (unless "*") and filters, on each event row, each compiled once. */
function conditionsOf(item: EventItem, params: Params): string {
  const parts: Fragment[] = []
  if (item.name !== '*') parts.push({ sql: 'name = {event:String}', params: { event: item.name } })
  const filters = compileAll(item.filters, { subject: 'events' })
  if (filters) parts.push(filters)
  const conditions = andClauses(parts, '    ')
  Object.assign(params, conditions.params)
  return conditions.sql
}

/**
 * One item's statement. The item's own params (its index, event name, filter values, keys) are bound
 * once, prefixed; its fragments are SQL only, as the top-groups subquery repeats the labels, aggregate
 * and conditions.
 */
function compileItem(query: ChartQuery, item: PlannedEventItem, index: number): Fragment {
  const shared = chartParams(query)
  const own: Params = { item: index, ...(query.breakdowns.length ? { groupLimit: query.breakdownLimit } : {}) }
  const labels = sqlOnly(labelsExpression(query.breakdowns, own))
  const conditions = sqlOnly(conditionsOf(item, own))
  const hourly = item.reads === 'hours'
  const { aggregate, arrayJoin } = aggregateOf(item, own, hourly)
  const context = { ...shared, ...own }
  const firstEvent = item.segment === 'one_event_per_user'
  let topGroups = sqlOnly('')
  let rank = sqlOnly('toUInt32(0)')
  if (query.breakdowns.length) {
    const top = compileInner('export/chart-top-groups.sql', context, { labels, aggregate: sqlOnly(aggregate), array_join: sqlOnly(arrayJoin), conditions })
    topGroups = sqlOnly(`INNER JOIN\n(\n${top.sql}\n) AS top USING (labels)`)
    rank = sqlOnly('top.rank')
  }
  const at = hourly ? 'toStartOfHour(created_at)' : 'created_at'
  const fragments: Record<string, Fragment> = {
    rank,
    bucket: sqlOnly(bucketExpression(query.interval, firstEvent ? 'first_at' : at)),
    labels,
    conditions,
    top_groups: topGroups,
  }
  const series = firstEvent
    ? compileInner('export/chart-series-first-event.sql', context, fragments)
    : compileInner('export/chart-series.sql', context, { ...fragments, at: sqlOnly(at), aggregate: sqlOnly(aggregate), array_join: sqlOnly(arrayJoin) })
  return prefixParams({ sql: series.sql, params: own }, `s${index}`, shared)
}

/** The one statement of a chart. Formula items need no SQL: they are evaluated from the others. */
export function compileChart(query: PlannedChart): CompiledQuery {
  const parts = query.items.flatMap((item, index) => (item.kind === 'event' ? [compileItem(query, item, index)] : []))
  const union: Fragment = {
    sql: parts.map((part) => part.sql).join('\n\nUNION ALL\n\n'),
    params: mergeParams(parts.map((part) => part.params), 'the chart series'),
  }
  return compileTemplate('export/chart.sql', chartParams(query), { series: union })
}
