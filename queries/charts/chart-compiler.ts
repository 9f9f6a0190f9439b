// The chart compiler: every series item of a request (and its breakdown groups and previous window)
// compiles to ONE statement, a UNION ALL of per-item GROUP BYs. Pure: no I/O.
import { bucketExpression } from '../core/buckets'
import { andClauses, compileFragment, compileTemplate, type CompiledQuery, type Fragment, type Params } from '../core/compiled'
import type { Breakdown, ChartQuery, EventItem, FieldSource, NumericSource } from './chart-params'
import { assertNever } from '../core/errors'
import { NUMBER_PATTERN, compileAll } from '../core/filters'
import { toClickHouseTime } from '../core/pipeline'

const SHARED_PARAMS = new Set(['projectId', 'start', 'end', 'from', 'tz'])

/** Gives a fragment's own params the item's prefix (`s0_...`) so items never collide. */
function prefixParams(fragment: Fragment, prefix: string): Fragment {
  const rename = (name: string) => (SHARED_PARAMS.has(name) ? name : `${prefix}_${name}`)
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

function labelsFragment(breakdowns: Breakdown[]): Fragment {
  if (breakdowns.length === 0) return { sql: 'CAST([], \'Array(String)\')', params: {} }
  const params: Params = {}
  const parts = breakdowns.map((breakdown, index) => fieldExpression(breakdown.source, `b${index}_key`, params))
  return { sql: `[${parts.join(', ')}]`, params }
}

/** The numeric value of a property segment: a numeric column, or a property that is a number (else NULL). */
function numberExpression(source: NumericSource, params: Params): string {
  switch (source.kind) {
    case 'column':
      return `toFloat64(${source.column})`
    case 'property':
      params.property_key = source.key
      return `if(match(properties[{property_key:String}], '${NUMBER_PATTERN.replace(/\\/g, '\\\\')}'), toFloat64OrZero(properties[{property_key:String}]), NULL)`
    default:
      return assertNever(source)
  }
}

/** The segment's aggregate (and the ARRAY JOIN the `group` segment reads through). */
function aggregateOf(item: EventItem): { aggregate: Fragment; arrayJoin: string } {
  const params: Params = {}
  const plain = (sql: string) => ({ aggregate: { sql, params }, arrayJoin: '' })
  switch (item.segment) {
    case 'event':
      return plain('count()')
    case 'user':
    case 'one_event_per_user':
      return plain('uniqExact(profile_id)')
    case 'session':
      return plain('uniqExact(session_id)')
    case 'group':
      return { aggregate: { sql: 'uniqExact(group_id)', params }, arrayJoin: ' ARRAY JOIN groups AS group_id' }
    case 'user_average':
      return plain('count() / uniqExact(profile_id)')
    case 'property_sum':
      return plain(`ifNull(sum(${numberExpression(item.property as NumericSource, params)}), 0)`)
    case 'property_average':
      return plain(`ifNull(avg(${numberExpression(item.property as NumericSource, params)}), 0)`)
    case 'property_min':
      return plain(`ifNull(min(${numberExpression(item.property as NumericSource, params)}), 0)`)
    case 'property_max':
      return plain(`ifNull(max(${numberExpression(item.property as NumericSource, params)}), 0)`)
    default:
      return assertNever(item.segment)
  }
}

/** `AND ...`: the item's event name (unless "*") and filters, on each event row. */
function conditionsOf(item: EventItem): Fragment {
  const parts: Fragment[] = []
  if (item.name !== '*') parts.push({ sql: 'name = {event:String}', params: { event: item.name } })
  const filters = compileAll(item.filters, { subject: 'events' })
  if (filters) parts.push(filters)
  return andClauses(parts, '    ')
}

function windowParams(query: ChartQuery): Params {
  return {
    projectId: query.projectId,
    start: toClickHouseTime(query.window.start),
    end: toClickHouseTime(query.window.end),
    from: toClickHouseTime((query.previousWindow ?? query.window).start),
  }
}

function compileItem(query: ChartQuery, item: EventItem, index: number): Fragment {
  const base = windowParams(query)
  const labels = labelsFragment(query.breakdowns)
  const conditions = conditionsOf(item)
  const { aggregate, arrayJoin } = aggregateOf(item)
  const firstEvent = item.segment === 'one_event_per_user'
  let topGroups: Fragment = { sql: '', params: {} }
  let rank: Fragment = { sql: 'toUInt32(0)', params: {} }
  if (query.breakdowns.length) {
    const top = compileFragment('export/chart-top-groups.sql', { ...base, groupLimit: query.breakdownLimit }, { labels, aggregate, array_join: { sql: arrayJoin, params: {} }, conditions })
    topGroups = { sql: `INNER JOIN\n(\n${top.sql}\n) AS top USING (labels)`, params: top.params }
    rank = { sql: 'top.rank', params: {} }
  }
  const fragments: Record<string, Fragment> = {
    rank,
    bucket: { sql: bucketExpression(query.interval, firstEvent ? 'first_at' : 'created_at'), params: { tz: query.timezone } },
    labels,
    conditions,
    top_groups: topGroups,
  }
  const series = firstEvent
    ? compileFragment('export/chart-series-first-event.sql', { ...base, item: index }, fragments)
    : compileFragment('export/chart-series.sql', { ...base, item: index }, { ...fragments, aggregate, array_join: { sql: arrayJoin, params: {} } })
  return prefixParams(series, `s${index}`)
}

/** The one statement of a chart. Formula items need no SQL: they are evaluated from the others. */
export function compileChart(query: ChartQuery): CompiledQuery {
  const parts = query.items.flatMap((item, index) => (item.kind === 'event' ? [compileItem(query, item, index)] : []))
  const union: Fragment = {
    sql: parts.map((part) => part.sql).join('\n\nUNION ALL\n\n'),
    params: Object.assign({}, ...parts.map((part) => part.params)),
  }
  return compileTemplate('export/chart.sql', {}, { series: union })
}
