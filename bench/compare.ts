// `npm run bench` (mode `compare`): for each question, gateway p50 over HTTP, raw-engine p50 of the same
// compiled SQL, the HTTP floor's p50 (the same statement behind a bare `node:http` server, bench/gateway.ts),
// and the OpenPanel-shaped baseline's p50, side by side with ratios; then what metrics' exact visitor count
// costs, one statement after some seconds of quiet against back to back, the dashboard burst, a repeated
// identical request, export throughput, the behaviour questions (bench/behaviour-compare.ts) and (if the long
// dataset exists) the 360-day / 90-day ratio, its two figures interleaved.
// Medians of at least RUNS after one warm-up (more where they fit in ROUND_BUDGET_MS), with the gateway,
// raw-engine and baseline runs interleaved so that the shared machine's changing load falls on all three
// alike. The raw engine's and the baseline's statements run in the gateway's process, on its engine and data
// directory (bench/gateway.ts).
import fs from 'node:fs'
import type { CompiledQuery } from '../queries/core/compiled'
import type { AnyResource, SettledRow } from '../queries/core/pipeline'
import { loadConfig } from '../server/config'
import { resolveRequest } from '../server/admin/explain'
import { statementsOf } from '../queries/run/statements'
import { answersWithOneStatement } from '../server/routes/routes'
import { compareBehaviour } from './behaviour-compare'
import { offsetExportSql } from './openpanel'
import { DASHBOARD, NOW, QUESTIONS } from './questions'
import { LONG, MAIN, PORT, PROJECT, TIMEZONE, openDataset, BENCH_GATEWAY_ENV } from './setup'
import { startGateway, type ChildGateway } from './gateway'
import { cacheHits } from './cache-hits'
import { withTimedGateway } from './timed-gateway'
import { Random } from '../test/support/random'

const RUNS = Number(process.env.QUARRY_BENCH_RUNS ?? 7)
/**
 * About how long the timed rounds of one comparison may take, by its warm-up round's time: a fast question gets
 * up to 4 × RUNS rounds instead of RUNS, as a handful of rounds of a short question overstated the gateway's
 * ratio to the raw engine (bench/README.md).
 */
const ROUND_BUDGET_MS = Number(process.env.QUARRY_BENCH_ROUND_BUDGET_MS ?? 8_000)
const MAX_RUNS = 4 * RUNS
const STREAMS = process.env.QUARRY_BENCH_STREAMS !== '0'
const EXPORT_DEPTH = Number(process.env.QUARRY_BENCH_EXPORT_DEPTH ?? 100_000)
const QUIET_MS = 3_000

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
export const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(0))
export const times = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}×`)

/** The task indexes in a new order (Fisher-Yates over a seeded generator, so a run can be repeated). */
export function shuffled(count: number, random: Random): number[] {
  const order = Array.from({ length: count }, (_, index) => index)
  for (let last = count - 1; last > 0; last -= 1) {
    const other = random.int(0, last)
    ;[order[last], order[other]] = [order[other], order[last]]
  }
  return order
}

/**
 * The times of several tasks over at least RUNS rounds after one warm-up round, and over as many as fit in
 * ROUND_BUDGET_MS at the warm-up's pace (at most MAX_RUNS), their runs interleaved in a new order each round, so
 * that no task keeps its place after the same other one: per task, one time per round, in round order.
 */
export async function interleavedSamples(tasks: (() => Promise<unknown>)[]): Promise<number[][]> {
  const samples: number[][] = tasks.map(() => [])
  const random = new Random(RUNS)
  let rounds = RUNS
  for (let round = 0; round <= rounds; round += 1) {
    const roundStarted = performance.now()
    for (const index of shuffled(tasks.length, random)) {
      const started = performance.now()
      await tasks[index]()
      if (round > 0) samples[index].push(performance.now() - started)
    }
    if (round === 0) rounds = Math.min(MAX_RUNS, Math.max(RUNS, Math.floor(ROUND_BUDGET_MS / (performance.now() - roundStarted))))
  }
  return samples
}

/** Each task's median over the rounds of interleavedSamples. */
export async function interleaved(tasks: (() => Promise<unknown>)[]): Promise<number[]> {
  return (await interleavedSamples(tasks)).map(median)
}

/** The bench project at the bench's clock, as a request of the bench client sees it. */
const benchScope = () => ({
  project: { id: PROJECT, name: PROJECT, timezone: TIMEZONE },
  now: NOW,
  sessionLookbackMs: loadConfig({}).sessionLookbackHours * 3_600_000,
})

/** A request URL's resource and planned query, resolved by the gateway's own router (as `explain`). */
export async function plannedFor(url: string): Promise<{ resource: AnyResource; query: unknown }> {
  const resolved = await resolveRequest(url)
  if (!resolved || !answersWithOneStatement(resolved.route)) throw new Error(`not a resource route: ${url}`)
  const resource = resolved.route.resource
  return { resource, query: resource.plan(resource.parse(resolved.query, benchScope())) }
}

/** The settled check a request URL's session question runs first (none for other questions). */
export async function settledCheckFor(url: string): Promise<CompiledQuery | undefined> {
  const { resource, query } = await plannedFor(url)
  return resource.settledCheck?.(query)
}

/**
 * The statement the gateway runs for a request URL: a session question's compiled with the rows its
 * settled check returns, as the gateway compiles it.
 */
export async function compiledFor(url: string, gateway: ChildGateway): Promise<CompiledQuery> {
  const { resource, query } = await plannedFor(url)
  const check = resource.settledCheck?.(query)
  if (!check) return resource.compile(query)
  const rows = (await gateway.statement(check.sql, check.params)) as unknown as SettledRow[]
  return resource.compile(query, rows)
}

/**
 * The statements the gateway runs for a request URL, a route of several statements too: its settled check,
 * which runs first, and then the statements that answer (given the check's rows), as explain lists them.
 */
export async function allStatementsFor(url: string, gateway: ChildGateway): Promise<{ check?: CompiledQuery; answering: CompiledQuery[] }> {
  const resolved = await resolveRequest(url)
  if (!resolved) throw new Error(`no route answers ${url}`)
  const scope = benchScope()
  const resource = resolved.route.resource
  const check = resource.settledCheck?.(resource.plan(resource.parse(resolved.query, scope)))
  const settled = check && ((await gateway.statement(check.sql, check.params)) as unknown as SettledRow[])
  const statements = statementsOf(resource, resolved.query, scope, false, settled)
  const answering = statements.filter((statement) => !statement.label.startsWith('settled check')).map((statement) => statement.compiled)
  return check ? { check, answering } : { answering }
}

/** The metrics statement's one exact count, which the baseline counts with `uniq`. */
const EXACT_VISITORS = 'uniqExact(visitor_key)'

/**
 * What the metrics question's exact visitor count costs: its statement as compiled against the same with
 * `uniq` in place of EXACT_VISITORS (an answer the gateway never gives) and the baseline as OpenPanel runs it,
 * on the raw engine, interleaved.
 */
async function exactnessCost(gateway: ChildGateway): Promise<void> {
  const question = QUESTIONS.find((candidate) => candidate.name === 'metrics')
  const compiled = question && (await compiledFor(question.url, gateway))
  if (!question || !compiled?.sql.includes(EXACT_VISITORS))
    throw new Error(`the metrics statement no longer counts visitors with ${EXACT_VISITORS}`)
  const approximate = compiled.sql.replace(EXACT_VISITORS, 'uniq(visitor_key)')
  const [baseline] = question.baseline
  const [exact, withUniq, openPanel] = await interleaved([
    () => gateway.statement(compiled.sql, compiled.params),
    () => gateway.statement(approximate, compiled.params),
    async () => {
      for (const statement of baseline.statements) await gateway.statement(statement.sql, statement.params)
    },
  ])
  console.log(
    `\nmetrics, raw engine: ${ms(exact)} ms as compiled, ${ms(withUniq)} ms with \`uniq\` for its visitors as the baseline counts them ` +
      `(exactness costs ${ms(exact - withUniq)} ms), baseline ${ms(openPanel)} ms (${baseline.label}): ${times(exact, openPanel)} as compiled, ${times(withUniq, openPanel)} with \`uniq\``,
  )
}

/**
 * Each question's raw-engine p50 on the 90-day and on the 360-day project, their runs interleaved: one
 * gateway per data directory (a process owns one), both up at once, so that the two figures of a ratio see
 * the same load instead of being taken minutes apart.
 */
async function historyRatios(main: ChildGateway): Promise<void> {
  const { engine } = await openDataset(LONG)
  await engine.close()
  const long = await startGateway({ dataDir: LONG.dir, port: PORT + 1, env: BENCH_GATEWAY_ENV })
  try {
    console.log(
      `\nSame 30-day questions, raw engine, 360-day project (${LONG.events} events) / 90-day project (${MAIN.events} events), runs interleaved:`,
    )
    console.log('| question | 90 days p50 ms | 360 days p50 ms | ratio |')
    console.log('|---|---|---|---|')
    // An untimed round on the new gateway first, as the 90-day one had: a freshly started gateway's first few
    // statements run several times slower, which fell on the first question's ratio (bench/README.md).
    for (const question of QUESTIONS) {
      const longer = await compiledFor(question.url, long)
      await long.statement(longer.sql, longer.params)
    }
    for (const question of QUESTIONS) {
      const [short, longer] = [await compiledFor(question.url, main), await compiledFor(question.url, long)]
      const [shortMs, longMs] = await interleaved([
        () => main.statement(short.sql, short.params),
        () => long.statement(longer.sql, longer.params),
      ])
      console.log(`| ${question.name} | ${ms(shortMs)} | ${ms(longMs)} | ${times(longMs, shortMs)} |`)
    }
  } finally {
    await long.stop()
  }
}

/** A GET whose body is read whole; anything but 200 fails. */
function fetchOk(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { headers }).then(async (res) => {
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`)
    return res
  })
}

export const get = (path: string, headers: Record<string, string>) => fetchOk(`http://127.0.0.1:${PORT}${path}`, headers)

/** A process's resident memory in MB, from /proc (Linux). */
function residentMb(pid: number): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmRSS:'))
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024
}

/** A process's minor page faults so far, from /proc (Linux): the 10th field of its stat line. */
function minorFaults(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return Number(fields[7])
}

/**
 * A statement on the raw engine right after the same one, and after some seconds of quiet: its median time and
 * the gateway process's minor page faults during it. Memory the engine's allocator handed back to the OS
 * meanwhile is faulted in again (server/engine.ts, keepFreedMemory).
 */
async function afterQuiet(compiled: CompiledQuery, gateway: ChildGateway, quietMs: number) {
  const pid = gateway.child.pid as number
  const timed = async () => {
    const faults = minorFaults(pid)
    const started = performance.now()
    await gateway.statement(compiled.sql, compiled.params)
    return { ms: performance.now() - started, faults: minorFaults(pid) - faults }
  }
  const back: { ms: number; faults: number }[] = []
  const quiet: { ms: number; faults: number }[] = []
  for (let run = 0; run < RUNS; run += 1) {
    await gateway.statement(compiled.sql, compiled.params)
    back.push(await timed())
    await new Promise((resolve) => setTimeout(resolve, quietMs))
    quiet.push(await timed())
  }
  const summary = (samples: { ms: number; faults: number }[]) => ({
    ms: median(samples.map((sample) => sample.ms)),
    faults: median(samples.map((sample) => sample.faults)),
  })
  return { back: summary(back), quiet: summary(quiet) }
}

/**
 * Rows per second of a whole-project stream, counting lines as they arrive, and the gateway's resident
 * memory before it and at its highest (sampled every 100 ms).
 */
async function streamRate(
  path: string,
  headers: Record<string, string>,
  gatewayPid: number,
): Promise<{ rows: number; rate: number; rssBefore: number; rssPeak: number }> {
  const rssBefore = residentMb(gatewayPid)
  let rssPeak = rssBefore
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, residentMb(gatewayPid))
  }, 100)
  const started = performance.now()
  try {
    const res = await fetch(`http://127.0.0.1:${PORT}${path}`, { headers })
    let rows = 0
    // TRICKY: Buffer.indexOf, not a loop over bytes in JavaScript: the loop was slower than the gateway's
    // stream, so the bench was timing itself (bench/README.md).
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
      for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) rows += 1
    }
    return { rows, rate: rows / ((performance.now() - started) / 1000), rssBefore, rssPeak: Math.max(rssPeak, residentMb(gatewayPid)) }
  } finally {
    clearInterval(sampler)
  }
}

/**
 * Mode `compare`, every section; `compare cache` runs only the per-route cache section (bench/cache-hits.ts),
 * which is short beside the rest.
 */
export async function compare(args = process.argv.slice(3)): Promise<void> {
  if (args.length > 0 && args.join(' ') !== 'cache')
    throw new Error(`compare runs every section, or \`compare cache\` its cache section; not "${args}"`)
  if (args[0] === 'cache') return withTimedGateway('sessions', ({ auth }) => cacheHits({ get, auth, shuffled }))
  console.log(
    `Medians of ${RUNS} to ${MAX_RUNS} runs after a warm-up (as many as fit in about ${ROUND_BUDGET_MS / 1000} s), gateway, raw engine and baseline runs interleaved; the machine is shared and noisy, so compare within this run.\n`,
  )
  // One process owns a data directory, so the raw engine's and the baseline's statements run in the
  // gateway's process, on the files the gateway reads. TRICKY: run on a copy in this process, the copy's
  // pages stayed cached while this machine's memory reclaim (DAMON pageout) evicted the gateway's less read
  // ones, and the gateway's engine ran the chart's statement 13-16% slower than the same one on the copy.
  // `Cache-Control: no-cache` (`fresh`) asks for a fresh answer, so the latency table measures engine work.
  await withTimedGateway('sessions', async ({ gateway, auth, fresh }) => {
    // A first round over every question, untimed: a freshly started gateway answers its first requests
    // several times slower before settling, which fell on the first question's figures only.
    for (const question of QUESTIONS) {
      const compiled = await compiledFor(question.url, gateway)
      await get(question.url, fresh)
      await gateway.statement(compiled.sql, compiled.params)
    }
    console.log(
      '| question | gateway p50 ms | raw engine p50 ms | gateway / raw | HTTP floor p50 ms | floor / raw | OpenPanel-shaped p50 ms | gateway / OpenPanel |',
    )
    console.log('|---|---|---|---|---|---|---|---|')
    for (const question of QUESTIONS) {
      const compiled = await compiledFor(question.url, gateway)
      const floorUrl = await gateway.floor(compiled.sql, compiled.params)
      const [http, raw, floor, ...baseline] = await interleaved([
        () => get(question.url, fresh),
        () => gateway.statement(compiled.sql, compiled.params),
        () => fetchOk(floorUrl, {}),
        ...question.baseline.map((variant) => async () => {
          for (const statement of variant.statements) await gateway.statement(statement.sql, statement.params)
        }),
      ])
      const baselineText = question.baseline.map((variant, index) => `${ms(baseline[index])} (${variant.label})`).join(', ')
      const ratioText = question.baseline.map((variant, index) => `${times(http, baseline[index])} (${variant.label})`).join(', ')
      console.log(
        `| ${question.name} | ${ms(http)} | ${ms(raw)} | ${times(http, raw)} | ${ms(floor)} | ${times(floor, raw)} | ${baselineText} | ${ratioText} |`,
      )
    }
    const keyset = (await (
      await fetch(`http://127.0.0.1:${PORT}/export/events?projectId=${PROJECT}&limit=1&page=${EXPORT_DEPTH}`, { headers: auth })
    ).json()) as { meta: { nextCursor: string } }
    const [deep, offset] = await interleaved([
      () => get(`/export/events?projectId=${PROJECT}&limit=50&cursor=${encodeURIComponent(keyset.meta.nextCursor)}`, fresh),
      () => gateway.statement(offsetExportSql, { projectId: PROJECT, offset: EXPORT_DEPTH }),
    ])
    console.log(
      `| export page ${EXPORT_DEPTH} rows deep | ${ms(deep)} (keyset) | - | - | - | - | ${ms(offset)} (offset) | ${times(deep, offset)} |`,
    )
    // Not in the gateway's figures while the data version holds: its questions reuse the check's rows.
    const check = await settledCheckFor(QUESTIONS[0].url)
    if (check) {
      const [alone] = await interleaved([() => gateway.statement(check.sql, check.params)])
      console.log(
        `| settled check of the 30-day window, alone (before a session question, unless its rows are reused) | - | ${ms(alone)} | - | - | - | - | - |`,
      )
    }
    await exactnessCost(gateway)
    const chart = QUESTIONS[QUESTIONS.length - 1]
    const { back, quiet } = await afterQuiet(await compiledFor(chart.url, gateway), gateway, QUIET_MS)
    console.log(
      `\n${chart.name}, raw engine: ${ms(back.ms)} ms right after the same statement, ${ms(quiet.ms)} ms after ${QUIET_MS / 1000} s of quiet ` +
        `(${times(quiet.ms, back.ms)}; ${back.faults} and ${quiet.faults} minor page faults; medians of ${RUNS})`,
    )

    const bursts: number[] = []
    const failures: string[] = []
    for (let run = 0; run < 3; run += 1) {
      const started = performance.now()
      await Promise.all(DASHBOARD.map((path) => get(path, fresh).catch((error: Error) => failures.push(error.message))))
      bursts.push(performance.now() - started)
    }
    const failed = failures.length
      ? `; ${failures.length} of ${3 * DASHBOARD.length} requests failed: ${[...new Set(failures)].join('; ')}`
      : ''
    console.log(`\nDashboard burst (metrics, pages and 8 breakdowns at once): ${ms(median(bursts))} ms wall-clock (median of 3)${failed}`)

    await cacheHits({ get, auth, shuffled })

    for (const format of STREAMS ? (['ndjson', 'csv'] as const) : []) {
      const { rows, rate, rssBefore, rssPeak } = await streamRate(
        `/export/events?projectId=${PROJECT}&format=${format}`,
        auth,
        gateway.child.pid as number,
      )
      console.log(
        `Whole-project ${format.toUpperCase()} export: ${rows} lines at ${Math.round(rate)} rows/s; gateway RSS ${rssBefore.toFixed(0)} MB before, ${rssPeak.toFixed(0)} MB at most (+${(rssPeak - rssBefore).toFixed(0)} MB)`,
      )
    }
    await compareBehaviour({ gateway, get, headers: fresh, samples: interleavedSamples })
    if (fs.existsSync(LONG.dir)) await historyRatios(gateway)
    else console.log(`\n360-day ratio skipped: no long dataset at ${LONG.dir} (create it with \`npm run bench -- long\`).`)
  })
}

/** Mode `behaviour`: the behaviour questions' part of `compare` alone (they and their baselines read events only). */
export async function compareBehaviourOnly(): Promise<void> {
  await withTimedGateway('events', ({ gateway, fresh }) => compareBehaviour({ gateway, get, headers: fresh, samples: interleavedSamples }))
}

/**
 * Mode `long`: seeds the 360-day dataset (4× the events) the ratios need; `long events` builds only what the
 * behaviour questions read (a later `compare` builds the rest).
 */
export async function seedLong(args: string[]): Promise<void> {
  const { engine } = await openDataset(LONG, args[0] === 'events' ? 'events' : 'sessions')
  await engine.close()
}
