// Mode `openpanel-routes`: OpenPanel's analytics routes through the gateway (fresh answers) against the
// statements OpenPanel runs for them (bench/openpanel.ts' tables, the same algorithm, tables and engine
// features, each citing OpenPanel's source at ed7bdddb), on the bench's data, interleaved medians in one
// run; then the least memory each statement completes under.
import { allStatementsFor, interleavedSamples, median, ms, times } from './compare'
import { memoryFloorMb } from './behaviour-compare'
import { BASELINE_TABLE } from './openpanel'
import { PROJECT, TIMEZONE } from './setup'
import { withTimedGateway } from './timed-gateway'
import type { ChildGateway } from './gateway'

/** The bench's 30 days (Berlin midnights), as OpenPanel's handlers hand them to its services (`YYYY-MM-DD HH:MM:SS`, UTC). */
const WINDOW = { startDate: '2025-12-02', endDate: '2025-12-31' }
const UTC = { start: '2025-12-01 23:00:00', end: '2025-12-31 23:00:00' }
const window = `startDate=${WINDOW.startDate}&endDate=${WINDOW.endDate}`
/** OpenPanel's `dau_mv` (code-migrations/3-init-ch.ts:193-204): a `uniqState(profile_id)` per UTC day. */
const DAU_TABLE = 'bench_op_dau'

const BETWEEN = `created_at BETWEEN toDateTime({start:String}) AND toDateTime({end:String})`

interface Baseline {
  /** Statements OpenPanel runs for the route (several run at once, as its `Promise.all`). */
  statements: string[]
}

/** Each route: the gateway's URL, and OpenPanel's statements for the same question. */
const ROUTES: { name: string; url: string; baseline: Baseline }[] = [
  {
    // overview.service.ts:358-400 (sessions, no FINAL, rollup, fill) and :222-250 (revenue events), in parallel.
    name: 'overview (30 days, by day)',
    url: `overview?${window}&interval=day`,
    baseline: {
      statements: [
        `SELECT toStartOfDay(created_at, {tz:String}) AS date,
          round(sum(sign * is_bounce) * 100.0 / sum(sign), 2) AS bounce_rate,
          uniqIf(profile_id, sign > 0) AS unique_visitors, sum(sign) AS total_sessions,
          round(avgIf(duration, duration > 0 AND sign > 0), 2) / 1000 AS _avg_session_duration,
          if(isNaN(_avg_session_duration), 0, _avg_session_duration) AS avg_session_duration,
          sum(sign * screen_view_count) AS total_screen_views,
          round(sum(sign * screen_view_count) * 1.0 / sum(sign), 2) AS views_per_session
        FROM ${BASELINE_TABLE}
        WHERE ${BETWEEN} AND project_id = {projectId:String}
        GROUP BY date WITH ROLLUP HAVING sum(sign) > 0
        ORDER BY date ASC WITH FILL FROM toStartOfDay(toDateTime({start:String}), {tz:String}) TO toDateTime({end:String}) STEP toIntervalDay(1)`,
        `SELECT toStartOfDay(created_at, {tz:String}) AS date, sum(revenue) AS total_revenue
        FROM events
        WHERE project_id = {projectId:String} AND name = 'revenue' AND revenue > 0 AND ${BETWEEN}
        GROUP BY date WITH ROLLUP`,
      ],
    },
  },
  {
    // retention.service.ts:60-84: every day of dau_mv, ARRAY JOIN range(days), uniqMerge per day.
    name: 'active_users (days=7)',
    url: `active_users?${window}`,
    baseline: {
      statements: [
        `SELECT date, uniqMerge(profile_id) AS users
        FROM (
          SELECT date + n AS date, profile_id, project_id
          FROM (SELECT * FROM ${DAU_TABLE} WHERE project_id = {projectId:String})
          ARRAY JOIN range(7) AS n
        )
        WHERE project_id = {projectId:String}
        GROUP BY date`,
      ],
    },
  },
  {
    // overview.service.ts:673-713 (getTopPages over events, uniq, at most 1,000 rows).
    name: 'pages/top (30 days)',
    url: `pages/top?${window}`,
    baseline: {
      statements: [
        `SELECT origin, path, uniq(session_id) AS sessions, count() AS pageviews
        FROM events
        WHERE project_id = {projectId:String} AND name = 'screen_view' AND path != '' AND ${BETWEEN}
        GROUP BY origin, path ORDER BY sessions DESC LIMIT 1000`,
      ],
    },
  },
  {
    // pages.service.ts:36-125 (titles of the last 30 days, each view's gap by a window function, sessions FINAL joined), limit 1000.
    name: 'pages/performance (30 days)',
    url: `pages/performance?${window}`,
    baseline: {
      statements: [
        `WITH page_titles AS (
          SELECT concat(origin, path) AS page_key, anyLast(properties['__title']) AS title
          FROM events WHERE project_id = {projectId:String} AND name = 'screen_view' AND created_at >= now() - INTERVAL 30 DAY
          GROUP BY origin, path
        ),
        screen_view_durations AS (
          SELECT project_id, session_id, path, origin,
            dateDiff('millisecond', created_at, lead(created_at, 1, created_at) OVER (PARTITION BY session_id ORDER BY created_at)) AS duration
          FROM events
          WHERE project_id = {projectId:String} AND name = 'screen_view' AND path != '' AND ${BETWEEN}
        )
        SELECT e.origin AS origin, e.path AS path, coalesce(pt.title, '') AS title, uniq(e.session_id) AS sessions, count() AS pageviews,
          round(avg(e.duration) / 1000 / 60, 2) AS avg_duration,
          round((uniqIf(e.session_id, s.is_bounce = 1) * 100.0) / nullIf(uniq(e.session_id), 0), 2) AS bounce_rate
        FROM screen_view_durations e
        LEFT JOIN (
          SELECT id, project_id, is_bounce FROM ${BASELINE_TABLE} FINAL
          WHERE project_id = {projectId:String} AND ${BETWEEN} AND sign = 1
        ) AS s ON e.session_id = s.id AND e.project_id = s.project_id
        LEFT JOIN page_titles pt ON concat(e.origin, e.path) = pt.page_key
        GROUP BY e.origin, e.path, pt.title
        ORDER BY sessions DESC LIMIT 1000`,
      ],
    },
  },
  ...(
    [
      ['traffic/referrers', 'referrer_name'],
      ['traffic/geo', 'country'],
      ['traffic/devices', 'device'],
    ] as const
  ).map(([route, column]) => ({
    // overview.service.ts:790-835 (getTopGeneric: sessions FINAL, sign sums, at most 1,000 rows).
    name: `${route} (30 days, ${column})`,
    url: `${route}?${window}`,
    baseline: {
      statements: [
        `SELECT nullIf(${column}, '') AS name, sum(sign) AS sessions, sum(sign * screen_view_count) AS pageviews
        FROM ${BASELINE_TABLE} FINAL
        WHERE project_id = {projectId:String} AND ${BETWEEN}
        GROUP BY ${column} HAVING sum(sign) > 0 ORDER BY sessions DESC LIMIT 1000`,
      ],
    },
  })),
  {
    // retention.service.ts:86-105: identified profiles' last event over the whole history, days to today().
    name: 'engagement (all history)',
    url: 'engagement',
    baseline: {
      statements: [
        `WITH last_active AS (
          SELECT max(created_at) AS last_active, profile_id FROM events
          WHERE (project_id = {projectId:String}) AND (device_id != profile_id)
          GROUP BY profile_id
        )
        SELECT dateDiff('day', last_active, today()) AS days, countDistinct(profile_id) AS users
        FROM last_active GROUP BY days ORDER BY days ASC`,
      ],
    },
  },
  {
    // event.service.ts:1316-1440 (queryEventsCore: every column, the window, LIMIT 20, no ORDER BY).
    name: 'events (30 days, limit 20)',
    url: `events?${window}`,
    baseline: { statements: [`SELECT * FROM events WHERE project_id = {projectId:String} AND ${BETWEEN} LIMIT 20`] },
  },
]

const PARAMS = { projectId: PROJECT, tz: TIMEZONE, start: UTC.start, end: UTC.end }

/** Builds (once) OpenPanel's `dau_mv` over the bench's events, as its materialized view keeps it. */
async function buildDau(gateway: ChildGateway): Promise<void> {
  await gateway.command(`CREATE TABLE IF NOT EXISTS ${DAU_TABLE} (date Date, profile_id AggregateFunction(uniq, String), project_id String)
    ENGINE = AggregatingMergeTree PARTITION BY toYYYYMMDD(date) ORDER BY (project_id, date)`)
  const [{ n }] = (await gateway.statement(`SELECT count() AS n FROM ${DAU_TABLE}`, {})) as { n: string }[]
  if (Number(n) > 0) return
  await gateway.command(
    `INSERT INTO ${DAU_TABLE} SELECT toDate(created_at) AS date, uniqState(profile_id) AS profile_id, project_id FROM events GROUP BY date, project_id`,
  )
}

const runBaseline = (gateway: ChildGateway, baseline: Baseline) =>
  Promise.all(baseline.statements.map((sql) => gateway.statement(sql, PARAMS)))

export async function main(): Promise<void> {
  await withTimedGateway('sessions', async ({ gateway, fresh }) => {
    await buildDau(gateway)
    const get = async (url: string) => {
      const res = await fetch(`${gateway.url}/insights/${PROJECT}/${url}`, { headers: fresh })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
    }
    const tasks = ROUTES.flatMap((route) => [() => get(route.url), () => runBaseline(gateway, route.baseline)])
    const samples = await interleavedSamples(tasks)
    console.log(`OpenPanel's analytics routes: the gateway (Cache-Control: no-cache) against OpenPanel's statements on the raw engine,`)
    console.log(`medians of ${samples[0].length} interleaved rounds after a warm-up\n`)
    console.log('| route | Quarry ms | OpenPanel ms | Quarry / OpenPanel |')
    console.log('|---|---|---|---|')
    ROUTES.forEach((route, index) => {
      const quarry = median(samples[2 * index])
      const openpanel = median(samples[2 * index + 1])
      console.log(`| ${route.name} | ${ms(quarry)} | ${ms(openpanel)} | ${times(quarry, openpanel)} |`)
    })
    if (process.env.QUARRY_BENCH_MEMORY !== '1') return
    console.log('\nThe least max_memory_usage each statement completes under (MB, to about 5%; statements that run at once added):\n')
    console.log('| route | Quarry MB | OpenPanel MB |')
    console.log('|---|---|---|')
    for (const route of ROUTES) {
      // The settled check runs before the statements that answer, which run at once: the larger of the two.
      const { check, answering } = await allStatementsFor(`/insights/${PROJECT}/${route.url}`, gateway)
      let quarry = 0
      for (const compiled of answering) quarry += await memoryFloorMb(gateway, compiled)
      if (check) quarry = Math.max(quarry, await memoryFloorMb(gateway, check))
      let openpanel = 0
      for (const sql of route.baseline.statements) openpanel += await memoryFloorMb(gateway, { sql, params: PARAMS })
      console.log(`| ${route.name} | ${quarry.toFixed(0)} | ${openpanel.toFixed(0)} |`)
    }
  })
}
