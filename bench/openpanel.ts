// The OpenPanel-shaped baseline: a one-row-per-session table built from the same events the way
// OpenPanel's ingestion keeps its `sessions` (a VersionedCollapsingMergeTree with `sign`), its
// `cohort_events_mv`, and the SQL OpenPanel runs for each bench question (sign sums and `uniq`,
// breakdowns over sessions, top pages over events, one statement per chart series, offset export pages,
// the funnel, the retention cohorts, the user flow's two statements). Each follows OpenPanel's source at
// commit ed7bdddb (Openpanel-dev/openpanel), whose file and lines it cites.
import type { ClickHouseClient } from '@clickhouse/client'

export const BASELINE_TABLE = 'bench_op_sessions'

/**
 * OpenPanel's sessions table as its order-key migration leaves it (`packages/db/code-migrations/8-order-keys.ts`
 * lines 77-121): its columns, types and codecs (but for the latitude and longitude the bench never reads), the
 * exit columns, and the key `(project_id, toDate(created_at), created_at)`.
 */
const SORTING_KEY = 'project_id, toDate(created_at), created_at'

/** Builds (once) the baseline table from `events`: one row per session, sign 1, version 1. */
export async function buildBaseline(client: ClickHouseClient, projectId: string): Promise<void> {
  const existing = await client.query({
    query: 'SELECT sorting_key FROM system.tables WHERE database = currentDatabase() AND name = {table:String}',
    query_params: { table: BASELINE_TABLE },
    format: 'JSONEachRow',
  })
  const [table] = (await existing.json()) as { sorting_key: string }[]
  // A table of an earlier bench (ordered by profile and id, without exit columns) is built again. The engine
  // lists a VersionedCollapsingMergeTree's key with its version column last.
  if (table && table.sorting_key !== `${SORTING_KEY}, version`) await client.command({ query: `DROP TABLE ${BASELINE_TABLE}` })
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${BASELINE_TABLE} (
      id String, project_id String CODEC(ZSTD(3)), profile_id String CODEC(ZSTD(3)), device_id String CODEC(ZSTD(3)),
      created_at DateTime64(3, 'UTC') CODEC(DoubleDelta, ZSTD(3)), ended_at DateTime64(3, 'UTC') CODEC(DoubleDelta, ZSTD(3)),
      is_bounce Bool, entry_origin LowCardinality(String), entry_path String CODEC(ZSTD(3)),
      exit_origin LowCardinality(String), exit_path String CODEC(ZSTD(3)), screen_view_count Int32, revenue Float64,
      event_count Int32, duration UInt32, country LowCardinality(FixedString(2)), region LowCardinality(String), city String,
      device LowCardinality(String), brand LowCardinality(String), model LowCardinality(String), browser LowCardinality(String),
      browser_version LowCardinality(String), os LowCardinality(String), os_version LowCardinality(String),
      utm_medium String CODEC(ZSTD(3)), utm_source String CODEC(ZSTD(3)), utm_campaign String CODEC(ZSTD(3)),
      utm_content String CODEC(ZSTD(3)), utm_term String CODEC(ZSTD(3)), referrer String CODEC(ZSTD(3)),
      referrer_name String CODEC(ZSTD(3)), referrer_type LowCardinality(String), sign Int8, version UInt64
    ) ENGINE = VersionedCollapsingMergeTree(sign, version)
    PARTITION BY toYYYYMM(created_at)
    ORDER BY (${SORTING_KEY})
    SETTINGS index_granularity = 8192`,
  })
  const rows = await client.query({
    query: `SELECT count() AS n FROM ${BASELINE_TABLE} WHERE project_id = {p:String}`,
    query_params: { p: projectId },
    format: 'JSONEachRow',
  })
  if (Number(((await rows.json()) as { n: string }[])[0].n) > 0) return
  // Exit columns as OpenPanel's session buffer writes them (`packages/db/src/buffers/session-buffer.ts` lines
  // 236-240): the page of the session's latest event that carries one, whatever its name.
  await client.command({
    query: `INSERT INTO ${BASELINE_TABLE}
      SELECT session_id, project_id, argMin(profile_id, created_at), argMin(device_id, created_at), min(created_at), max(created_at),
        countIf(name = 'screen_view') <= 1, argMin(origin, created_at), argMin(path, created_at),
        argMaxIf(origin, created_at, origin != ''), argMaxIf(path, created_at, path != ''),
        countIf(name = 'screen_view'), sum(revenue), count(), dateDiff('second', min(created_at), max(created_at)),
        argMin(country, created_at), argMin(region, created_at), argMin(city, created_at), argMin(device, created_at),
        argMin(brand, created_at), argMin(model, created_at), argMin(browser, created_at), argMin(browser_version, created_at),
        argMin(os, created_at), argMin(os_version, created_at), argMin(utm_medium, created_at), argMin(utm_source, created_at),
        argMin(utm_campaign, created_at), argMin(utm_content, created_at), argMin(utm_term, created_at),
        argMin(referrer, created_at), argMin(referrer_name, created_at), argMin(referrer_type, created_at), 1, 1
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

/** One funnel step as OpenPanel's funnel service renders it: the event's name and its filters' condition. */
export interface FunnelStep {
  /** The bound parameter holding the step's event name. */
  nameParam: string
  /** The step's filters over the event's own columns, already in SQL with bound parameters, or none. */
  filter?: string
}

/** A step's condition: its filters ANDed with its name, as `getFunnelConditions` builds it (`funnel.service.ts:50-63`). */
const stepCondition = (step: FunnelStep) => `${step.filter ? `(${step.filter}) AND ` : ''}name = {${step.nameParam}:String}`

/**
 * OpenPanel's funnel (`packages/db/src/services/funnel.service.ts`), in this project's words, grouped by
 * session as its route's default:
 * - per session, `windowFunnel` over milliseconds in `strict_increase` mode (line 114), each step's condition
 *   inside it (lines 50-63), and the session's `argMax(profile_id, created_at)` (line 116);
 * - over the project's events `BETWEEN` the window's ends, of the steps' names, and only the rows matching some
 *   step (lines 120-137);
 * - with a breakdown, each session's value at its earliest row matching step 1, by `argMinIf` (lines 347-362);
 * - the sessions with a level above 0 counted per level (and breakdown value), highest level first (lines
 *   488-505).
 */
export function funnelSql(steps: FunnelStep[], breakdown?: string): string {
  const conditions = steps.map(stepCondition)
  const breakdownSelect = breakdown ? `,\n      argMinIf(${breakdown}, created_at, ${conditions[0]}) AS b_0` : ''
  const breakdownKey = breakdown ? ', b_0' : ''
  return `WITH session_funnel AS (
    SELECT session_id,
      windowFunnel({windowMilliseconds:UInt64}, 'strict_increase')(toUInt64(toUnixTimestamp64Milli(created_at)), ${conditions.join(', ')}) AS level,
      argMax(profile_id, created_at) AS profile_id${breakdownSelect}
    FROM events
    WHERE project_id = {projectId:String} AND created_at BETWEEN {start:DateTime64(3, 'UTC')} AND {end:DateTime64(3, 'UTC')}
      AND name IN (${steps.map((step) => `{${step.nameParam}:String}`).join(', ')})
      AND (${conditions.map((condition) => `(${condition})`).join(' OR ')})
    GROUP BY session_id
  ),
  funnel AS (SELECT * FROM session_funnel WHERE level != 0)
  SELECT level${breakdownKey}, count() AS count FROM funnel GROUP BY level${breakdownKey} ORDER BY level DESC`
}

/** OpenPanel's `cohort_events_mv`, under the bench's name for it. */
export const COHORT_VIEW = 'bench_op_cohort_events_mv'

/**
 * The view as OpenPanel's first ClickHouse migration creates it (`packages/db/code-migrations/3-init-ch.ts`
 * lines 208-224, through `createMaterializedView` of `packages/db/src/clickhouse/migration.ts` lines 364-398):
 * an AggregatingMergeTree keyed by project, name, day and profile, one row per identified profile
 * (`profile_id != device_id`), name and day of an inserted block.
 */
export const cohortViewSql = `CREATE MATERIALIZED VIEW IF NOT EXISTS ${COHORT_VIEW}
  ENGINE = AggregatingMergeTree()
  ORDER BY (project_id, name, created_at, profile_id)
  AS SELECT project_id, name, toDate(created_at) AS created_at, profile_id, count() AS event_count
  FROM events
  WHERE profile_id != device_id
  GROUP BY project_id, name, created_at, profile_id`

/**
 * The view's rows for the events already stored, as if it had been there when they were inserted (OpenPanel
 * creates it with its first tables, without POPULATE): its own query over every stored event.
 */
export const cohortViewFillSql = `INSERT INTO ${COHORT_VIEW}
  SELECT project_id, name, toDate(created_at) AS created_at, profile_id, count() AS event_count
  FROM events
  WHERE profile_id != device_id
  GROUP BY project_id, name, created_at, profile_id`

/**
 * OpenPanel's retention cohorts (`packages/db/src/services/retention.service.ts` lines 287-400), in this
 * project's words, for any start and return event and weekly periods: from `cohort_events_mv` (line 318, so
 * identified profiles only), each profile's cohort week (Sunday weeks, `toStartOfWeek` of its first day in the
 * window), its days with events up to `periods` weeks past the window, the pairs whose week lies 0 to `periods`
 * weeks after the cohort's, one `groupUniqArrayIf` of profile ids per cohort and period whose lengths are the
 * counts (so memory grows with profiles x periods), and each cohort's size joined from `cohort_sizes`.
 * `criteria` is `on` (a period counts the profiles with an event in it), the question the bench asks Quarry.
 */
export function retentionCohortSql(periods: number): string {
  const users = Array.from({ length: periods + 1 }, (_, k) => `groupUniqArrayIf(profile_id, x_after_cohort = ${k}) AS interval_${k}_users`)
  const counts = Array.from({ length: periods + 1 }, (_, k) => `length(interval_${k}_users) AS interval_${k}_user_count`)
  return `WITH cohort_users AS (
    SELECT profile_id AS userID, toStartOfWeek(min(created_at)) AS cohort_interval
    FROM ${COHORT_VIEW}
    WHERE project_id = {projectId:String} AND created_at >= toDateTime({start:String}) AND created_at <= toDateTime({end:String})
    GROUP BY profile_id
  ),
  last_event AS (
    SELECT profile_id, toDate(created_at) AS event_date
    FROM ${COHORT_VIEW}
    WHERE project_id = {projectId:String} AND created_at >= toDateTime({start:String})
      AND created_at <= toDateTime({end:String}) + INTERVAL ${periods} WEEK
  ),
  retention_matrix AS (
    SELECT f.cohort_interval, l.profile_id, dateDiff('WEEK', f.cohort_interval, toStartOfWeek(l.event_date)) AS x_after_cohort
    FROM cohort_users AS f
    INNER JOIN last_event AS l ON f.userID = l.profile_id
    WHERE l.event_date >= f.cohort_interval AND dateDiff('WEEK', f.cohort_interval, toStartOfWeek(l.event_date)) <= ${periods}
  ),
  interval_users AS (
    SELECT cohort_interval,
      ${users.join(',\n      ')}
    FROM retention_matrix
    GROUP BY cohort_interval
  ),
  cohort_sizes AS (
    SELECT cohort_interval, count(DISTINCT userID) AS total_first_event_count FROM cohort_users GROUP BY cohort_interval
  )
  SELECT interval_users.cohort_interval AS cohort_interval, cs.total_first_event_count AS total_first_event_count,
    ${counts.join(',\n    ')}
  FROM interval_users
  LEFT JOIN cohort_sizes AS cs ON interval_users.cohort_interval = cs.cohort_interval
  ORDER BY cohort_interval ASC`
}

/**
 * The sessions of OpenPanel's user flow in mode `after` (`packages/db/src/services/sankey.service.ts` lines
 * 364-491): the sessions with the start event in the window (`start_event_sessions`, lines 74-92); each
 * session's event names in time order with repeats in a row collapsed (lines 374-434); sliced from the first
 * start event to `steps` names (line 109); cut before the first name seen again (lines 447-455); kept with 2
 * names or more (each a HAVING without grouping, as its query builder writes them).
 */
const sankeyPaths = `start_event_sessions AS (
    SELECT session_id FROM events
    WHERE project_id = {projectId:String} AND name = {startEvent:String}
      AND created_at BETWEEN {start:DateTime64(3, 'UTC')} AND {end:DateTime64(3, 'UTC')}
    GROUP BY session_id
  ),
  ordered_events AS (
    SELECT session_id, name AS event_name, created_at FROM events
    WHERE project_id = {projectId:String} AND created_at BETWEEN {start:DateTime64(3, 'UTC')} AND {end:DateTime64(3, 'UTC')}
    ORDER BY session_id ASC, created_at ASC
  ),
  events_deduped_cte AS (
    SELECT session_id,
      arrayFilter((x, i) -> i = 1 OR x != events_raw[i - 1], groupArray(event_name) AS events_raw, arrayEnumerate(events_raw)) AS events_deduped
    FROM ordered_events
    GROUP BY session_id
  ),
  events_sliced_cte AS (
    SELECT session_id, arraySlice(events_deduped, arrayFirstIndex(x -> x = {startEvent:String}, events_deduped), {steps:UInt8}) AS events_sliced
    FROM events_deduped_cte
    HAVING session_id IN (SELECT session_id FROM start_event_sessions)
  ),
  session_paths_base AS (
    SELECT session_id,
      if(arrayFirstIndex(x -> x > 1, arrayEnumerateUniq(events_sliced)) = 0, events_sliced,
        arraySlice(events_sliced, 1, arrayFirstIndex(x -> x > 1, arrayEnumerateUniq(events_sliced)) - 1)) AS events,
      events[1] AS entry_event
    FROM events_sliced_cte
    HAVING length(events) >= 2
  )`

/** The user flow's first statement: the 3 most frequent entry events (`sankey.service.ts` lines 278-297). */
export const sankeyEntriesSql = `WITH ${sankeyPaths}
  SELECT entry_event, count() AS count FROM session_paths_base GROUP BY entry_event ORDER BY count DESC LIMIT 3`

/**
 * Its second: of the sessions entering on one of those events, every (step, source, target) transition counted
 * (`sankey.service.ts` lines 299-327).
 */
export const sankeyTransitionsSql = `WITH ${sankeyPaths},
  session_paths AS (SELECT session_id, events FROM session_paths_base HAVING events[1] IN {entries:Array(String)})
  SELECT pair.1 AS source, pair.2 AS target, pair.3 AS step, count() AS value
  FROM (
    SELECT arrayJoin(arrayMap(i -> (events[i], events[i + 1], i), range(1, length(events)))) AS pair
    FROM session_paths WHERE length(events) >= 2
  )
  GROUP BY source, target, step
  ORDER BY step ASC, value DESC`
