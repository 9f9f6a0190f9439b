// The behaviour questions in `npm run bench` (modes `compare` and `behaviour`): funnel, retention and paths
// through the gateway and as compiled on the raw engine, beside OpenPanel-shaped statements for the same
// questions (bench/openpanel.ts), with the targets of each ratio; retention's memory as the engine enforces
// it; and each question over 360 days against its 30-day time, both on the 360-day dataset.
import fs from 'node:fs'
import type { CompiledQuery } from '../queries/core/compiled'
import { prepare } from '../queries/core/pipeline'
import { loadConfig } from '../server/config'
import { resolveRequest } from '../server/admin/explain'
import { answersWithOneStatement } from '../server/routes/routes'
import { startGateway, type ChildGateway } from './gateway'
import {
  COHORT_VIEW,
  cohortViewFillSql,
  cohortViewSql,
  funnelSql,
  retentionCohortSql,
  sankeyEntriesSql,
  sankeyTransitionsSql,
} from './openpanel'
import { percentile } from './percentile'
import { NOW } from './questions'
import { BENCH_GATEWAY_ENV, LONG, PORT, PROJECT, TIMEZONE, openDataset, perDay } from './setup'

/** The compare mode's helpers: a checked GET to the gateway and interleaved runs (per task, a time per round). */
export interface BenchTools {
  gateway: ChildGateway
  get(path: string, headers: Record<string, string>): Promise<Response>
  headers: Record<string, string>
  samples(tasks: (() => Promise<unknown>)[]): Promise<number[][]>
}

/** 30 days, as the other questions (Berlin midnights of 2025-12-02 and 2026-01-01); 8 Monday weeks; 360 days. */
const DAYS_30 = {
  startDate: '2025-12-02',
  endDate: '2025-12-31',
  utc: { start: '2025-12-01 23:00:00.000', end: '2025-12-31 23:00:00.000' },
}
const WEEKS_8 = {
  startDate: '2025-10-06',
  endDate: '2025-11-30',
  utc: { start: '2025-10-05 22:00:00.000', end: '2025-11-30 23:00:00.000' },
}
const DAYS_360 = { startDate: '2025-01-06', endDate: '2025-12-31' }
type Span = { startDate: string; endDate: string }

const FUNNEL_STEPS = ['screen_view', 'add_to_cart', 'purchase']
const FILTERED_STEPS = [
  { name: 'screen_view', filters: [{ name: 'path', operator: 'contains', value: ['product'] }] },
  { name: 'add_to_cart', filters: [{ name: 'device', operator: 'isNot', value: ['tablet'] }] },
  'purchase',
]
const RETENTION_PERIODS = 8
const PATH_STEPS = 5

const query = (params: Record<string, string | string[]>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) for (const item of Array.isArray(value) ? value : [value]) search.append(key, item)
  return search.toString()
}
const funnelUrl = (span: Span) =>
  `/insights/${PROJECT}/funnel?startDate=${span.startDate}&endDate=${span.endDate}&${query({ steps: FUNNEL_STEPS })}`
const filteredFunnelUrl = (span: Span) =>
  `/insights/${PROJECT}/funnel?startDate=${span.startDate}&endDate=${span.endDate}&${query({ steps: JSON.stringify(FILTERED_STEPS), breakdown: 'country' })}`
const retentionUrl = (span: Span) =>
  `/insights/${PROJECT}/retention?startDate=${span.startDate}&endDate=${span.endDate}&period=week&periods=${RETENTION_PERIODS}&detail=true`
const pathsUrl = (span: Span) => `/insights/${PROJECT}/paths?startDate=${span.startDate}&endDate=${span.endDate}&steps=${PATH_STEPS}`

/** A baseline: the statements OpenPanel runs for one question, in its order; the bench times them together. */
interface Baseline {
  run(gateway: ChildGateway): Promise<unknown>
}
type Statement = { sql: string; params: Record<string, unknown> }
const single = (statement: Statement): Baseline => ({ run: (gateway) => gateway.statement(statement.sql, statement.params) })

const base = { projectId: PROJECT }
const funnelWindow = { ...base, ...DAYS_30.utc, windowMilliseconds: 86_400_000 }
const funnelBaseline = single({
  sql: funnelSql(FUNNEL_STEPS.map((_, index) => ({ nameParam: `step${index}` }))),
  params: { ...funnelWindow, ...Object.fromEntries(FUNNEL_STEPS.map((step, index) => [`step${index}`, step])) },
})
/**
 * The same question as FILTERED_STEPS with its country breakdown, as OpenPanel's funnel service renders its
 * filters (`packages/db/src/services/chart.service.ts` lines 1591-1609: `isNot` as `!=`, `contains` as `LIKE`).
 */
const filteredFunnelBaseline = single({
  sql: funnelSql(
    [
      { nameParam: 'step0', filter: 'path LIKE {step0Path:String}' },
      { nameParam: 'step1', filter: 'device != {step1Device:String}' },
      { nameParam: 'step2' },
    ],
    'country',
  ),
  params: { ...funnelWindow, step0: 'screen_view', step0Path: '%product%', step1: 'add_to_cart', step1Device: 'tablet', step2: 'purchase' },
})
/** OpenPanel's period count is the window's whole weeks (8 here); its return events are read that many weeks past its end. */
const retentionBaseline: Statement = {
  sql: retentionCohortSql(RETENTION_PERIODS),
  params: { ...base, start: WEEKS_8.utc.start.slice(0, 19), end: WEEKS_8.utc.end.slice(0, 19) },
}
/**
 * OpenPanel's user flow needs a start event: `screen_view`, the event Quarry's page nodes are made of. Its two
 * statements run one after the other, the second with the first's entries, as its service runs them.
 */
const SANKEY_START = 'screen_view'
const sankeyBaseline: Baseline = {
  async run(gateway) {
    const params = { ...base, ...DAYS_30.utc, startEvent: SANKEY_START, steps: PATH_STEPS }
    const entries = await gateway.statement(sankeyEntriesSql, params)
    return gateway.statement(sankeyTransitionsSql, { ...params, entries: entries.map((row) => String(row.entry_event)) })
  },
}

interface Row {
  name: string
  url: string
  baseline: Baseline
  target: number
  targetText: string
}

const ROWS: Row[] = [
  { name: 'funnel, 3 steps, 30 days', url: funnelUrl(DAYS_30), baseline: funnelBaseline, target: 1, targetText: '<= 1x' },
  {
    name: 'funnel, step filters + breakdown',
    url: filteredFunnelUrl(DAYS_30),
    baseline: filteredFunnelBaseline,
    target: 1,
    targetText: '<= 1x',
  },
  {
    name: 'retention, 8 weekly cohorts',
    url: retentionUrl(WEEKS_8),
    baseline: single(retentionBaseline),
    target: 0.5,
    targetText: '<= 0.5x',
  },
  { name: 'paths, 5 steps, 30 days', url: pathsUrl(DAYS_30), baseline: sankeyBaseline, target: 1, targetText: '<= 1x' },
]

/** OpenPanel's cohort view, created and filled once, then merged to one part as the bench's other tables are. */
async function buildCohortView(gateway: ChildGateway): Promise<void> {
  await gateway.command(cohortViewSql)
  const [filled] = await gateway.statement(`SELECT count() AS n FROM ${COHORT_VIEW}`, {})
  if (Number(filled.n) > 0) return
  await gateway.command(cohortViewFillSql)
  await gateway.command(`OPTIMIZE TABLE ${COHORT_VIEW} FINAL`)
}

const ms = (value: number) => value.toFixed(0)
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
const verdict = (value: number, target: number) => (value <= target ? 'met' : 'NOT met')
const median = (values: number[]) => percentile(values, 50)

/**
 * Two tasks' times of the same rounds compared: the ratio of their medians, and the quartiles of the ratio
 * taken round by round (each round's pair ran back to back, so a busy spell of the machine falls on both).
 */
function paired(ours: number[], theirs: number[]): { ratio: number; spread: string } {
  const rounds = ours.map((time, index) => time / theirs[index])
  return { ratio: median(ours) / median(theirs), spread: `${percentile(rounds, 25).toFixed(2)}-${percentile(rounds, 75).toFixed(2)}` }
}

/** The statement the gateway compiles for a behaviour request (no settled check: these read events). */
async function compiledFor(url: string): Promise<CompiledQuery> {
  const resolved = await resolveRequest(url)
  if (!resolved || !answersWithOneStatement(resolved.route)) throw new Error(`not a resource route: ${url}`)
  const scope = {
    project: { id: PROJECT, name: PROJECT, timezone: TIMEZONE },
    now: NOW,
    sessionLookbackMs: loadConfig({}).sessionLookbackHours * 3_600_000,
  }
  return prepare(resolved.route.resource, resolved.query, scope).compiled
}

/**
 * The least `max_memory_usage` under which a statement completes, found by halving the range on a log scale
 * (to about 5%): the engine's own accounting of what the statement needs, where the embedded engine keeps no
 * system.query_log to read `memory_usage` from.
 */
export async function memoryFloorMb(gateway: ChildGateway, statement: { sql: string; params: Record<string, unknown> }): Promise<number> {
  let [low, high] = [16, 16_384]
  while (high / low > 1.05) {
    const middle = Math.sqrt(low * high)
    const fits = await gateway
      .statement(`${statement.sql}\nSETTINGS max_memory_usage = ${Math.round(middle * 1024 * 1024)}`, statement.params)
      .then(
        () => true,
        (error: Error) => {
          if (!/memory limit|MEMORY_LIMIT_EXCEEDED/i.test(error.message)) throw error
          return false
        },
      )
    if (fits) high = middle
    else low = middle
  }
  return high
}

/**
 * Each question over 360 days against 30 days, both windows on the 360-day dataset (its events span the
 * year up to the bench's END, by default as many a day as the 90-day dataset's), so the longer window holds
 * 12 times the days of events; runs interleaved on the raw engine.
 */
async function windowRatios(samples: BenchTools['samples']): Promise<void> {
  const { engine } = await openDataset(LONG, 'events')
  await engine.close()
  const long = await startGateway({ dataDir: LONG.dir, port: PORT + 1, env: BENCH_GATEWAY_ENV })
  try {
    console.log(
      `\nThe same questions over 360 days against 30 days, raw engine, on the 360-day dataset (${LONG.events} events, ${perDay(LONG)} a day), runs interleaved:`,
    )
    console.log('| question | rounds | 30 days p50 ms | 360 days p50 ms | ratio of medians | per-round ratio p25-p75 | target |')
    console.log('|---|---|---|---|---|---|---|')
    const pairs = [
      ['funnel, 3 steps', funnelUrl(DAYS_30), funnelUrl(DAYS_360)],
      ['retention, weekly', retentionUrl(DAYS_30), retentionUrl(DAYS_360)],
      ['paths, 5 steps', pathsUrl(DAYS_30), pathsUrl(DAYS_360)],
    ] as const
    for (const [name, shortUrl, longUrl] of pairs) {
      const [short, longer] = [await compiledFor(shortUrl), await compiledFor(longUrl)]
      const [shortMs, longMs] = await samples([
        () => long.statement(short.sql, short.params),
        () => long.statement(longer.sql, longer.params),
      ])
      const { ratio: times, spread } = paired(longMs, shortMs)
      console.log(
        `| ${name} | ${shortMs.length} | ${ms(median(shortMs))} | ${ms(median(longMs))} | ${times.toFixed(2)}× | ${spread} | <= 12x: ${verdict(times, 12)} |`,
      )
    }
  } finally {
    await long.stop()
  }
}

export async function compareBehaviour({ gateway, get, headers, samples }: BenchTools): Promise<void> {
  await buildCohortView(gateway)
  console.log(
    '\nBehaviour questions against OpenPanel-shaped statements (bench/openpanel.ts): medians of the rounds, each round running the three in a new order:',
  )
  console.log(
    '| question | rounds | gateway p50 ms | raw engine p50 ms | OpenPanel-shaped p50 ms | gateway / OpenPanel (ratio of medians) | per-round ratio p25-p75 | raw / OpenPanel | target |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const row of ROWS) {
    const compiled = await compiledFor(row.url)
    await get(row.url, headers)
    const [http, raw, baseline] = await samples([
      () => get(row.url, headers),
      () => gateway.statement(compiled.sql, compiled.params),
      () => row.baseline.run(gateway),
    ])
    const ours = paired(http, baseline)
    console.log(
      `| ${row.name} | ${http.length} | ${ms(median(http))} | ${ms(median(raw))} | ${ms(median(baseline))} | ${ours.ratio.toFixed(2)}× | ${ours.spread} | ` +
        `${paired(raw, baseline).ratio.toFixed(2)}× | ${row.targetText}: ${verdict(ours.ratio, row.target)} |`,
    )
  }

  const retention = await compiledFor(retentionUrl(WEEKS_8))
  const [ours, theirs] = [await memoryFloorMb(gateway, retention), await memoryFloorMb(gateway, retentionBaseline)]
  console.log(
    `\nRetention, 8 weekly cohorts: the least max_memory_usage it completes under (the embedded engine keeps no system.query_log): ` +
      `${ours.toFixed(0)} MB against ${theirs.toFixed(0)} MB for OpenPanel's cohort query over its cohort view, ${ratio(ours, theirs)} (target <= 0.5x: ${verdict(ours / theirs, 0.5)})`,
  )

  if (fs.existsSync(LONG.dir)) await windowRatios(samples)
  else
    console.log(
      `\n360-day / 30-day ratios skipped: no 360-day dataset at ${LONG.dir} (create it with \`npm run bench -- long\`, or \`npm run bench -- long events\` for the events these questions read).`,
    )
}
