// `npm run bench` (mode `compare`): for each question, gateway p50 over HTTP, raw-engine p50 of the same
// compiled SQL, and the OpenPanel-shaped baseline's p50, side by side with ratios; then the dashboard
// burst, a repeated identical request, export throughput and (if the long dataset exists) the
// 360-day / 90-day ratio. Medians of RUNS after one warm-up; compare within one run, the machine is shared.
import fs from 'node:fs'
import type { ClickHouseClient } from '@clickhouse/client'
import { prepare } from '../queries/pipeline'
import { loadConfig } from '../server/config'
import { matchRoute } from '../server/explain'
import { isResourceRoute } from '../server/routes'
import { offsetExportSql } from './openpanel'
import { DASHBOARD, NOW, QUESTIONS } from './questions'
import { LONG, MAIN, PORT, PROJECT, TIMEZONE, openDataset, startGateway, stopGateway, waitForAuth, type Credentials, type Dataset } from './setup'

const RUNS = Number(process.env.QUARRY_BENCH_RUNS ?? 5)
const EXPORT_DEPTH = Number(process.env.QUARRY_BENCH_EXPORT_DEPTH ?? 100_000)

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(0))
const times = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}×`)

/** Median wall time of `task` over RUNS runs, after one warm-up. */
async function p50(task: () => Promise<unknown>): Promise<number> {
  await task()
  const samples: number[] = []
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now()
    await task()
    samples.push(performance.now() - started)
  }
  return median(samples)
}

async function runSql(client: ClickHouseClient, sql: string, params: Record<string, unknown>): Promise<void> {
  const result = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' })
  await result.json()
}

/** The statement the gateway compiles for a request URL. */
function compiledFor(url: string) {
  const parsed = new URL(url, 'http://bench')
  const match = matchRoute(parsed.pathname)
  if (!match || !isResourceRoute(match.route)) throw new Error(`not a resource route: ${url}`)
  const scope = { project: { id: PROJECT, name: PROJECT, timezone: TIMEZONE }, now: NOW, sessionLookbackMs: loadConfig({}).sessionLookbackHours * 3_600_000 }
  return prepare(match.route.resource, Object.fromEntries(parsed.searchParams), scope).compiled
}

interface EngineFigures {
  raw: Map<string, number>
  baseline: Map<string, Map<string, number>>
}

/** Raw-engine p50 of the gateway's SQL and of the baseline's statements, in this process. */
async function engineFigures(dataset: Dataset, withBaseline: boolean): Promise<{ figures: EngineFigures; credentials: Credentials }> {
  const { engine, credentials } = await openDataset(dataset)
  const figures: EngineFigures = { raw: new Map(), baseline: new Map() }
  try {
    for (const question of QUESTIONS) {
      const compiled = compiledFor(question.url)
      figures.raw.set(question.name, await p50(() => runSql(engine.client, compiled.sql, compiled.params)))
      if (!withBaseline) continue
      const variants = new Map<string, number>()
      for (const variant of question.baseline) {
        variants.set(variant.label, await p50(async () => {
          for (const statement of variant.statements) await runSql(engine.client, statement.sql, statement.params)
        }))
      }
      figures.baseline.set(question.name, variants)
    }
    if (withBaseline) {
      const offset = await p50(() => runSql(engine.client, offsetExportSql, { projectId: PROJECT, offset: EXPORT_DEPTH }))
      figures.baseline.set('export', new Map([[`offset ${EXPORT_DEPTH}`, offset]]))
    }
  } finally {
    await engine.close()
  }
  return { figures, credentials }
}

function get(path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`http://127.0.0.1:${PORT}${path}`, { headers }).then(async (res) => {
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`)
    return res
  })
}

/** Rows per second of a whole-project stream, counting lines as they arrive. */
async function streamRate(path: string, headers: Record<string, string>): Promise<{ rows: number; rate: number }> {
  const started = performance.now()
  const res = await fetch(`http://127.0.0.1:${PORT}${path}`, { headers })
  let rows = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) for (const byte of chunk) if (byte === 10) rows += 1
  return { rows, rate: rows / ((performance.now() - started) / 1000) }
}

export async function compare(): Promise<void> {
  console.log(`Medians of ${RUNS} runs after a warm-up; the machine is shared and noisy, so compare within this run.\n`)
  const { figures, credentials } = await engineFigures(MAIN, true)
  const longFigures = fs.existsSync(LONG.dir) ? (await engineFigures(LONG, false)).figures : undefined
  const auth = { 'openpanel-client-id': credentials.id, 'openpanel-client-secret': credentials.secret }
  // `Cache-Control: no-cache` asks for a fresh answer, so the latency table measures engine work.
  const fresh = { ...auth, 'cache-control': 'no-cache' }
  const gateway = await startGateway(MAIN.dir)
  try {
    await waitForAuth(auth)
    console.log('| question | gateway p50 ms | raw engine p50 ms | gateway / raw | OpenPanel-shaped p50 ms | gateway / OpenPanel |')
    console.log('|---|---|---|---|---|---|')
    for (const question of QUESTIONS) {
      const http = await p50(() => get(question.url, fresh))
      const raw = figures.raw.get(question.name)
      const variants = [...(figures.baseline.get(question.name) ?? new Map<string, number>())]
      const baselineText = variants.map(([label, value]) => `${ms(value)} (${label})`).join(', ')
      const ratioText = variants.map(([label, value]) => `${times(http, value)} (${label})`).join(', ')
      console.log(`| ${question.name} | ${ms(http)} | ${ms(raw)} | ${times(http, raw)} | ${baselineText} | ${ratioText} |`)
    }
    const keyset = (await (await fetch(`http://127.0.0.1:${PORT}/export/events?projectId=${PROJECT}&limit=1&page=${EXPORT_DEPTH}`, { headers: auth })).json()) as { meta: { nextCursor: string } }
    const deep = await p50(() => get(`/export/events?projectId=${PROJECT}&limit=50&cursor=${encodeURIComponent(keyset.meta.nextCursor)}`, fresh))
    const offset = figures.baseline.get('export')?.get(`offset ${EXPORT_DEPTH}`)
    console.log(`| export page ${EXPORT_DEPTH} rows deep | ${ms(deep)} (keyset) | - | - | ${ms(offset)} (offset) | ${times(deep, offset)} |`)

    const bursts: number[] = []
    for (let run = 0; run < 3; run += 1) {
      const started = performance.now()
      await Promise.all(DASHBOARD.map((path) => get(path, fresh)))
      bursts.push(performance.now() - started)
    }
    console.log(`\nDashboard burst (metrics, pages and 8 breakdowns at once): ${ms(median(bursts))} ms wall-clock (median of 3)`)

    const repeated = QUESTIONS[0].url
    const repeatedTimes: number[] = []
    for (let run = 0; run < RUNS; run += 1) {
      await get(repeated, auth)
      const started = performance.now()
      await get(repeated, auth)
      repeatedTimes.push(performance.now() - started)
    }
    console.log(`Repeated identical request (metrics, second of two): ${median(repeatedTimes).toFixed(1)} ms p50`)

    for (const format of ['ndjson', 'csv'] as const) {
      const { rows, rate } = await streamRate(`/export/events?projectId=${PROJECT}&format=${format}`, auth)
      console.log(`Whole-project ${format.toUpperCase()} export: ${rows} lines at ${Math.round(rate)} rows/s`)
    }
  } finally {
    await stopGateway(gateway)
  }
  if (!longFigures) {
    console.log(`\n360-day ratio skipped: no long dataset at ${LONG.dir} (create it with \`npm run bench -- long\`).`)
    return
  }
  console.log(`\nSame 30-day questions, raw engine, 360-day project (${LONG.events} events) / 90-day project (${MAIN.events} events):`)
  console.log('| question | 90 days p50 ms | 360 days p50 ms | ratio |')
  console.log('|---|---|---|---|')
  for (const question of QUESTIONS) {
    const short = figures.raw.get(question.name)
    const long = longFigures.raw.get(question.name)
    console.log(`| ${question.name} | ${ms(short)} | ${ms(long)} | ${times(long, short)} |`)
  }
}

/** Mode `long`: seeds the 360-day dataset (4× the events) the ratio needs. */
export async function seedLong(): Promise<void> {
  const { engine } = await openDataset(LONG)
  await engine.close()
}
