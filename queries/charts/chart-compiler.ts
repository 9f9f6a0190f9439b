// The chart compiler: every series item of a request (and its breakdown groups and previous window)
// compiles to ONE statement, a UNION ALL of per-item GROUP BYs. Pure: no I/O.
import { bucketExpression } from '../core/buckets'
import { compileInner, compileTemplate, mergeParams, sqlOnly, type CompiledQuery, type Fragment, type Params } from '../core/compiled'
import type { Breakdown, ChartQuery, EventItem, FieldSource, NumericSource, PlannedChart, PlannedEventItem } from './chart-params'
import { itemNames } from './chart-plan'
import { assertNever } from '../core/errors'
import { isNumberText } from '../core/filters'
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

function labelsExpression(breakdowns: Breakdown[], params: Params, names: string): string {
  if (breakdowns.length === 0) return "CAST([], 'Array(String)')"
  return `[${breakdowns.map((breakdown, index) => fieldExpression(breakdown.source, `${names}b${index}_key`, params)).join(', ')}]`
}

/** The numeric value of a property segment: a numeric column, or a property that is a number (else NULL). */
function numberExpression(source: NumericSource, params: Params, names: string): string {
  switch (source.kind) {
    case 'column':
      return `toFloat64(${source.column})`
    case 'property': {
      const key = `${names}property_key`
      params[key] = source.key
      return `if(${isNumberText(`properties[{${key}:String}]`)}, toFloat64OrZero(properties[{${key}:String}]), NULL)`
    }
    default:
      return assertNever(source)
  }
}

/**
 * The segment's aggregate (and the ARRAY JOIN the `group` segment reads through). By the hour, a column's
 * sum is the integer sum the projection holds: the same value as the sum of its Float64 values below 2^53.
 */
function aggregateOf(item: EventItem, params: Params, names: string, hourly: boolean): { aggregate: string; arrayJoin: string } {
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
      return plain(`ifNull(sum(${numberExpression(item.property, params, names)}), 0)`)
    case 'property_average':
      return plain(`ifNull(avg(${numberExpression(item.property, params, names)}), 0)`)
    case 'property_min':
      return plain(`ifNull(min(${numberExpression(item.property, params, names)}), 0)`)
    case 'property_max':
      return plain(`ifNull(max(${numberExpression(item.property, params, names)}), 0)`)
    default:
      return assertNever(item)
  }
}

/**
 * One item's statement. The item's own params (its index, event name, filter values, keys) are bound
 * once, named after the item (`s<index>_`, the names its conditions got in the plan); its fragments are
 * SQL only, as the top-groups subquery repeats the labels, aggregate and conditions.
 */
function compileItem(query: ChartQuery, item: PlannedEventItem, index: number): Fragment {
  const names = itemNames(index)
  const shared = chartParams(query)
  const own: Params = { [`${names}item`]: index, ...(query.breakdowns.length ? { [`${names}groupLimit`]: query.breakdownLimit } : {}) }
  const labels = sqlOnly(labelsExpression(query.breakdowns, own, names))
  Object.assign(own, item.conditions.params)
  const conditions = sqlOnly(item.conditions.sql)
  const hourly = item.reads === 'hours'
  const { aggregate, arrayJoin } = aggregateOf(item, own, names, hourly)
  const context = { ...shared, ...own }
  const firstEvent = item.segment === 'one_event_per_user'
  let topGroups = sqlOnly('')
  let rank = sqlOnly('toUInt32(0)')
  if (query.breakdowns.length) {
    const top = compileInner('export/chart-top-groups.sql', context, {
      labels,
      aggregate: sqlOnly(aggregate),
      array_join: sqlOnly(arrayJoin),
      conditions,
      group_limit: sqlOnly(`{${names}groupLimit:UInt32}`),
    })
    topGroups = sqlOnly(`INNER JOIN\n(\n${top.sql}\n) AS top USING (labels)`)
    rank = sqlOnly('top.rank')
  }
  const at = hourly ? 'toStartOfHour(created_at)' : 'created_at'
  const fragments: Record<string, Fragment> = {
    item: sqlOnly(`{${names}item:UInt32}`),
    rank,
    bucket: sqlOnly(bucketExpression(query.interval, firstEvent ? 'first_at' : at)),
    labels,
    conditions,
    top_groups: topGroups,
  }
  const series = firstEvent
    ? compileInner('export/chart-series-first-event.sql', context, fragments)
    : compileInner('export/chart-series.sql', context, {
        ...fragments,
        at: sqlOnly(at),
        aggregate: sqlOnly(aggregate),
        array_join: sqlOnly(arrayJoin),
      })
  return { sql: series.sql, params: own }
}

/** The one statement of a chart. Formula items need no SQL: they are evaluated from the others. */
export function compileChart(query: PlannedChart): CompiledQuery {
  const parts = query.items.flatMap((item, index) => (item.kind === 'event' ? [compileItem(query, item, index)] : []))
  const union: Fragment = {
    sql: parts.map((part) => part.sql).join('\n\nUNION ALL\n\n'),
    params: mergeParams(
      parts.map((part) => part.params),
      'the chart series',
    ),
  }
  return compileTemplate('export/chart.sql', chartParams(query), { series: union })
}
