// The breakdown resources (`/referrer`, `/country`, ...): one shared template, one registry entry each;
// breakdowns of one window, filters and page that wait together run as one statement.
import { keptKeysCondition, type KeptKeys } from '../core/compare'
import type { Rows } from '../core/rows.generated'
import { compileInner, compileTemplate, sqlOnly, type CompiledQuery, type Fragment, type Params } from '../core/compiled'
import { KEY_COLUMNS, breakdownCompare } from './insight-compare'
import {
  comparedSchema,
  decideFilters,
  parseInsightParams,
  widenForSessions,
  type InsightQuery,
  type PlannedInsight,
} from './insight-params'
import { pageParams, splitPage } from '../core/paging'
import { planSteps, type Joins, type Resource } from '../core/pipeline'
import { DIMENSIONS, breakdownSql, sessionColumn, type Dimension, type DimensionSpec, type SessionAttribute } from '../core/registry'
import { percent, ratio } from '../core/rounding'
import { decideSessionReads, type SessionReads } from '../sessions/reads'
import { withSettled } from '../sessions/question'
import { breakdownRollupRows } from '../sessions/rollup-rows'
import { performedWith } from '../sessions/session-sets'
import { sessionSource, sessionStatement, type SessionSource } from '../sessions/source'
import { eventJoin, regroupedSessions, windowSessions } from '../sessions/window-sessions'

const specOf = (name: Dimension): DimensionSpec => DIMENSIONS[name]

/** The attributes a breakdown groups by: its column, then its prefix (if any). */
function attributesOf(name: Dimension): SessionAttribute[] {
  const { column, prefix } = specOf(name)
  return prefix ? [column, prefix] : [column]
}

/** A breakdown after its plan: what its settled sessions are read from decided (core/reads.ts). */
type PlannedBreakdown = PlannedInsight & { reads: SessionReads }

/** A regrouped session's member, prefix and value under each breakdown asked together (insights/member-join.sql). */
const MEMBER_VALUES = {
  member: sqlOnly('\n    toUInt32(member_value.1) AS member,'),
  prefix: sqlOnly('member_value.2'),
  name: sqlOnly('member_value.3'),
}

/**
 * The statement of breakdowns that read the session rollup (the wing's `breakdownRollupRows`): one
 * (`dimension-rollup.sql`), or several asked together (`dimension-sets-rollup.sql`, with `member`).
 * The names are written as text (`breakdownSql`): bound, they would tell apart the params of breakdowns that
 * can run together (queries/run/joined-runs.ts keys batches by them).
 */
function compileRollup(
  names: Dimension[],
  { source, params, kept }: { source: SessionSource; params: Params; kept?: KeptKeys },
): CompiledQuery {
  const breakdowns = names.map(breakdownSql)
  const rollupRows = breakdownRollupRows(
    source,
    breakdowns.map((breakdown) => breakdown.name),
  )
  const regrouped = regroupedSessions(source, [...new Set(names.flatMap(attributesOf))])
  // Each regrouped session's member (none alone), prefix and value, and the join that gives its members.
  const counts = (values: Record<'member' | 'prefix' | 'name' | 'member_join', Fragment>) =>
    compileInner('insights/rollup-counts.sql', params, { rollup_rows: rollupRows, regrouped_sessions: regrouped, ...values })
  if (names.length === 1) {
    return compileTemplate('insights/dimension-rollup.sql', params, {
      kept_keys: keptKeysCondition(kept, KEY_COLUMNS, '\nHAVING'),
      rollup_counts: counts({
        member: sqlOnly(''),
        prefix: sqlOnly(breakdowns[0].prefix),
        name: sqlOnly(breakdowns[0].value),
        member_join: sqlOnly(''),
      }),
    })
  }
  const members = compileInner('insights/member-join.sql', params, {
    members: sqlOnly(breakdowns.map(({ prefix, value }, index) => `(${index}, ${prefix}, ${value})`).join(', ')),
  })
  return compileTemplate('insights/dimension-sets-rollup.sql', params, {
    rollup_counts: counts({ ...MEMBER_VALUES, member_join: members }),
  })
}

/** A breakdown's statement, or several breakdowns' (their grouping sets, `dimension-sets.sql`). */
function compileDimensions(names: Dimension[], query: PlannedBreakdown): CompiledQuery {
  const source = sessionSource(query)
  const params = { ...source.params, ...pageParams(query) }
  if (query.reads === 'rollup') return compileRollup(names, { source, params, kept: query.kept })
  const { views, join } = eventJoin(source)
  const attributes = [...new Set(names.flatMap(attributesOf))]
  const counts = compileInner('insights/kept-counts.sql', params, {
    window_sessions: windowSessions(source, attributes),
    views,
    views_join: join,
  })
  const shared = { performed_with: performedWith(source), kept_counts: counts }
  if (names.length === 1) {
    const { prefix, value } = breakdownSql(names[0])
    return compileTemplate('insights/dimension.sql', params, {
      prefix: sqlOnly(prefix),
      name: sqlOnly(value),
      kept_keys: keptKeysCondition(query.kept, KEY_COLUMNS, '\nHAVING'),
      ...shared,
    })
  }
  // GROUPING(...) of every column: a bit per column, most significant first, 1 where the set leaves it out.
  const columns = attributes.map(sessionColumn)
  const grouping = `GROUPING(${columns.join(', ')})`
  const members = names.map((name, index) => ({ name, index, prefix: specOf(name).prefix, own: attributesOf(name).map(sessionColumn) }))
  const maskOf = (own: string[]) => columns.reduce((mask, column) => mask * 2 + (own.includes(column) ? 0 : 1), 0)
  const prefixed = members.flatMap(({ index, prefix }) => (prefix ? [`member = ${index}, ${sessionColumn(prefix)}`] : []))
  return compileTemplate('insights/dimension-sets.sql', params, {
    member: sqlOnly(`multiIf(${members.map(({ own, index }) => `${grouping} = ${maskOf(own)}, ${index}`).join(', ')}, ${names.length})`),
    prefix: sqlOnly(prefixed.length ? `multiIf(${prefixed.join(', ')}, '')` : "''"),
    name: sqlOnly(`multiIf(${members.map(({ name, index }) => `member = ${index}, ${breakdownSql(name).value}`).join(', ')}, '')`),
    grouping_sets: sqlOnly(members.map(({ own }) => `(${own.join(', ')})`).join(', ')),
    ...shared,
  })
}

/** Breakdowns of one window, filters and page, asked together: one statement (queries/run/joined-runs.ts). */
const breakdownsTogether: Joins<PlannedBreakdown> = {
  family: 'insights.dimension',
  key: (query) => JSON.stringify(query),
  rows: (query) => pageParams(query).rowsToRead,
  compile: (members, settled) =>
    compileDimensions(
      members.map((member) => member.resource as Dimension),
      withSettled(members[0].query, settled),
    ),
}

function dimensionResource(name: Dimension): Resource<InsightQuery, PlannedBreakdown, Rows['insights/dimension.sql']> {
  const spec = specOf(name)
  return {
    name,
    schema: comparedSchema,
    joins: breakdownsTogether,
    parse: (raw, scope) => parseInsightParams(raw, scope, 'compared'),
    plan: planSteps(widenForSessions, decideFilters, decideSessionReads),
    ...sessionStatement((query: PlannedBreakdown) => compileDimensions([name], query)),
    shape(rawRows, query) {
      const { page, hasMore } = splitPage(rawRows, query)
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
    compare: breakdownCompare(name),
  }
}

export const dimensions: Resource<InsightQuery, PlannedBreakdown, Rows['insights/dimension.sql']>[] = (
  Object.keys(DIMENSIONS) as Dimension[]
).map(dimensionResource)
