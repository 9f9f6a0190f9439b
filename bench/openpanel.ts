// The OpenPanel-shaped baseline: a one-row-per-session table built from the same events the way
// OpenPanel's ingestion keeps its `sessions` (a VersionedCollapsingMergeTree with `sign`), and the SQL
// OpenPanel runs for each bench question (sign sums and `uniq`, breakdowns over sessions, top pages over
// events, one statement per chart series, offset export pages).
import type { ClickHouseClient } from '@clickhouse/client'

export const BASELINE_TABLE = 'bench_op_sessions'

/** Builds (once) the baseline table from `events`: one row per session, sign 1, version 1. */
export async function buildBaseline(client: ClickHouseClient, projectId: string): Promise<void> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${BASELINE_TABLE} (
      id String, project_id String, profile_id String, created_at DateTime64(3, 'UTC'), ended_at DateTime64(3, 'UTC'),
      is_bounce UInt8, entry_origin String, entry_path String, screen_view_count Int32, event_count Int32,
      duration UInt32, revenue Int64, referrer String, referrer_name String, referrer_type String,
      utm_source String, utm_medium String, utm_campaign String, utm_term String, utm_content String,
      country String, region String, city String, device String, brand String, model String,
      browser String, browser_version String, os String, os_version String, sign Int8, version UInt64
    ) ENGINE = VersionedCollapsingMergeTree(sign, version)
    PARTITION BY toYYYYMM(created_at)
    ORDER BY (project_id, toDate(created_at), profile_id, id)`,
  })
  const rows = await client.query({
    query: `SELECT count() AS n FROM ${BASELINE_TABLE} WHERE project_id = {p:String}`,
    query_params: { p: projectId },
    format: 'JSONEachRow',
  })
  if (Number(((await rows.json()) as { n: string }[])[0].n) > 0) return
  await client.command({
    query: `INSERT INTO ${BASELINE_TABLE}
      SELECT session_id, project_id, argMin(profile_id, created_at), min(created_at), max(created_at),
        countIf(name = 'screen_view') <= 1, argMin(origin, created_at), argMin(path, created_at),
        countIf(name = 'screen_view'), count(), dateDiff('second', min(created_at), max(created_at)), sum(revenue),
        argMin(referrer, created_at), argMin(referrer_name, created_at), argMin(referrer_type, created_at),
        argMin(utm_source, created_at), argMin(utm_medium, created_at), argMin(utm_campaign, created_at),
        argMin(utm_term, created_at), argMin(utm_content, created_at), argMin(country, created_at),
        argMin(region, created_at), argMin(city, created_at), argMin(device, created_at), argMin(brand, created_at),
        argMin(model, created_at), argMin(browser, created_at), argMin(browser_version, created_at),
        argMin(os, created_at), argMin(os_version, created_at), 1, 1
      FROM events WHERE project_id = {p:String} GROUP BY project_id, session_id`,
    query_params: { p: projectId },
  })
}

export interface Statement {
  sql: string
  params: Record<string, string>
}

const WINDOW_EVENTS = `project_id = {projectId:String} AND created_at >= {start:DateTime64(3, 'UTC')} AND created_at < {end:DateTime64(3, 'UTC')}`
const PATH_SESSIONS = `AND id IN (SELECT session_id FROM events WHERE ${WINDOW_EVENTS} AND path ILIKE {pathLike:String})`

/**
 * The distinct count OpenPanel uses (`uniq`, an estimate), or `uniqExact` for the same statement made exact,
 * as Quarry's answers are: the bench shows both, so that what exactness costs is measured, not argued.
 */
const distinct = (exact: boolean) => (exact ? 'uniqExact' : 'uniq')

/** Metrics: sign-weighted sums and `uniq` (or `uniqExact`), totals and a day series, no FINAL (as OpenPanel runs it). */
export function metricsSql(pathFilter: boolean, exact = false): string {
  return `SELECT toStartOfDay(created_at, {tz:String}) AS date, sum(sign * is_bounce) * 100 / sum(sign) AS bounce_rate,
    ${distinct(exact)}(profile_id) AS unique_visitors, sum(sign) AS total_sessions, sum(sign * duration) / sum(sign) AS avg_session_duration,
    sum(sign * screen_view_count) AS total_screen_views, sum(sign * revenue) AS total_revenue
  FROM ${BASELINE_TABLE}
  WHERE ${WINDOW_EVENTS} ${pathFilter ? PATH_SESSIONS : ''}
  GROUP BY date WITH ROLLUP ORDER BY date`
}

/** The generic breakdown over sessions, with FINAL (as OpenPanel runs it) or without. */
export function breakdownSql(column: string, options: { final: boolean; pathFilter: boolean }): string {
  return `SELECT ${column} AS name, sum(sign) AS sessions, sum(sign * screen_view_count) AS pageviews,
    sum(sign * is_bounce) * 100 / sum(sign) AS bounce_rate, sum(sign * duration) / sum(sign) AS avg_session_duration
  FROM ${BASELINE_TABLE}${options.final ? ' FINAL' : ''}
  WHERE ${WINDOW_EVENTS} ${options.pathFilter ? PATH_SESSIONS : ''}
  GROUP BY name ORDER BY sessions DESC LIMIT 10`
}

/** Top pages over events (no bounce rate, duration or title), with `uniq` (or `uniqExact`). */
export function pagesSql(pathFilter: boolean, exact = false): string {
  return `SELECT origin, path, ${distinct(exact)}(session_id) AS sessions, count() AS pageviews
  FROM events
  WHERE ${WINDOW_EVENTS} AND name = 'screen_view' ${pathFilter ? 'AND path ILIKE {pathLike:String}' : ''}
  GROUP BY origin, path ORDER BY sessions DESC LIMIT 10`
}

/** One chart series: one statement per series and per period, with `uniq` (or `uniqExact`). */
export function chartSeriesSql(segment: 'user' | 'property_sum' | 'session', exact = false): string {
  const measure =
    segment === 'user' ? `${distinct(exact)}(profile_id)` : segment === 'session' ? `${distinct(exact)}(session_id)` : 'sum(revenue)'
  const where =
    segment === 'user' ? "AND name = 'screen_view'" : segment === 'property_sum' ? "AND name = 'purchase'" : "AND country = 'DE'"
  return `SELECT toStartOfDay(created_at, {tz:String}) AS date, ${measure} AS count FROM events
  WHERE ${WINDOW_EVENTS} ${where} GROUP BY date ORDER BY date`
}

/** An offset export page, newest first. */
export const offsetExportSql = `SELECT * FROM events WHERE project_id = {projectId:String}
  ORDER BY created_at DESC LIMIT 50 OFFSET {offset:UInt64}`

/**
 * OpenPanel's funnel (funnel.service.ts), in this project's words: `windowFunnel` in `strict_increase` mode
 * per session over the events of the steps' names, every step inside the date window, then groups counted per
 * level reached. Its public route takes event names only: no step filters, no breakdown.
 */
export function funnelSql(stepCount: number): string {
  const conditions = Array.from({ length: stepCount }, (_, index) => `name = {step${index}:String}`).join(', ')
  return `SELECT level, count() AS count FROM (
    SELECT session_id, windowFunnel({windowSeconds:UInt64}, 'strict_increase')(toUnixTimestamp(created_at), ${conditions}) AS level
    FROM events
    WHERE ${WINDOW_EVENTS} AND name IN (${Array.from({ length: stepCount }, (_, index) => `{step${index}:String}`).join(', ')})
    GROUP BY session_id
  ) GROUP BY level ORDER BY level DESC`
}

/**
 * OpenPanel's cohort table (retention.service.ts), in this project's words: each visitor's first week, joined
 * with the weeks they were active in, then one `groupUniqArrayIf` of visitor ids per cohort and period, whose
 * lengths are the counts: its memory grows with visitors x periods. (OpenPanel counts identified users only;
 * here every visitor, so both sides count the same people.)
 */
export function retentionCohortSql(periods: number): string {
  const columns = Array.from({ length: periods + 1 }, (_, k) => `length(groupUniqArrayIf(profile_id, diff = ${k})) AS period_${k}`).join(
    ',\n    ',
  )
  return `SELECT cohort,
    ${columns}
  FROM (
    SELECT c.profile_id AS profile_id, c.cohort AS cohort, dateDiff('week', c.cohort, e.period) AS diff
    FROM (SELECT profile_id, toStartOfWeek(min(created_at), 1, {tz:String}) AS cohort FROM events WHERE ${WINDOW_EVENTS} GROUP BY profile_id) AS c
    INNER JOIN (SELECT DISTINCT profile_id, toStartOfWeek(created_at, 1, {tz:String}) AS period FROM events
      WHERE project_id = {projectId:String} AND created_at >= {start:DateTime64(3, 'UTC')} AND created_at < {readTo:DateTime64(3, 'UTC')}) AS e
    USING (profile_id)
  )
  GROUP BY cohort ORDER BY cohort`
}

/**
 * OpenPanel's user flow (sankey.service.ts), in this project's words: each session's event names in time
 * order, cut to the steps, then every (step, source, target) pair counted; over names only, so page
 * navigation is one `screen_view` node.
 */
export const sankeySql = `SELECT step, source, target, count() AS sessions FROM (
    SELECT arraySlice(arrayMap(x -> x.2, arraySort(groupArray((created_at, name)))), 1, {steps:UInt8}) AS path
    FROM events WHERE ${WINDOW_EVENTS}
    GROUP BY session_id
    HAVING length(path) > 1
  )
  ARRAY JOIN arrayEnumerate(arrayPopBack(path)) AS step
  GROUP BY step, path[step] AS source, path[step + 1] AS target
  ORDER BY step, sessions DESC
  LIMIT 10 BY step`
