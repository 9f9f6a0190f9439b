// `npm run loadtest -- [options]`: drives a running gateway with a scenario on autocannon, prints a table
// while it runs, writes report.json, report.md and latency.svg, and exits non-zero on a missed objective.
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { compareReports, parsePercent } from './compare'
import { DiscoveryError, discoverTarget } from './discover'
import { gatewayView, scrape } from './prometheus'
import { seededRandom } from './random'
import { buildReport, comparisonLines, gatewayLines, noticeLines, sloLines, writeReport } from './report'
import { REPORT_FORMAT, type Comparison, type LoadReport } from './report-shape'
import { startLoad } from './runner'
import { SCENARIOS } from './scenarios'
import { connectionOf } from './scenarios/scenario'
import { checkSlo, parseSlo, type Objective } from './slo'
import { createLiveView, renderTable } from './table'
import { isLoopback, resolveCredentials } from './target'
import { mostlyRefused, rateLimitProblem, readRateLimit } from './preflight'

/** Exit codes: every objective met; an objective missed or a route regressed; the run was refused or failed. */
export const EXIT = { ok: 0, missed: 1, refused: 2 } as const

const USAGE = `npm run loadtest -- [options]

Sends real queries to a running gateway (it never starts one) and reports what it saw.

  --url <url>              the gateway (default http://127.0.0.1:$PORT, PORT defaulting to 3000)
Credentials come from QUARRY_CLIENT_ID and QUARRY_CLIENT_SECRET (a read or root client), never from the
command line (npm echoes it); without them and without --url, from the local demo's credentials file.

  --project <id>           the project to load (default: a read client's own project)
  --scenario <name>        ${Object.keys(SCENARIOS).join(', ')} (default dashboard)
  --connections <n>        concurrent connections (default 8)
  --duration <seconds>     stop after this long (default 30)
  --amount <n>             or after this many requests, whichever comes first
  --rate <n>               requests per second over all connections (open loop); without it, closed loop
  --seed <n>               seed of the drawn request parameters (default 1)
  --timeout <seconds>      a request unanswered for this long counts as a timeout (default 30)
  --out <dir>              where report.json, report.md and latency.svg go (default loadtest-report)
  --slo <list>             e.g. "p99<300ms,errors<0.1%": exit 1 when one is missed (also p50/p90/p95/p99.9/max/mean, rps>N)
  --compare <old.json>     print each route's change against an earlier report ([new.json] as well: compare two files, no run)
  --max-regression <pct>   with --compare: exit 1 when a route's p50 or p99 grew more than this (default 10%)
  --metrics-url <url>      the gateway's Prometheus listener (default http://<gateway host>:$QUARRY_METRICS_PORT/metrics, 9464)
  --i-own-this-target      allow a URL that is not on this machine (127.0.0.0/8, ::1, localhost)
  --help
`

export interface CliIo {
  env: NodeJS.ProcessEnv
  out: NodeJS.WriteStream | NodeJS.WritableStream
  err: NodeJS.WritableStream
}

class UsageError extends Error {}

function numberOption(value: string | undefined, name: string, fallback?: number): number | undefined {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!Number.isFinite(number) || number <= 0) throw new UsageError(`--${name} must be a positive number, got "${value}"`)
  return number
}

class UnreadableReport extends Error {}

function readReport(file: string): LoadReport {
  try {
    const report = JSON.parse(fs.readFileSync(file, 'utf8')) as LoadReport
    if (report.format !== REPORT_FORMAT || !report.overall || !report.routes) throw new Error(`not a report of format ${REPORT_FORMAT}`)
    return report
  } catch (error) {
    throw new UnreadableReport(`cannot read the report ${file}: ${(error as Error).message}`)
  }
}

function parseCli(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      // Refused with a message that says where credentials go instead.
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      project: { type: 'string' },
      scenario: { type: 'string', default: 'dashboard' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      amount: { type: 'string' },
      rate: { type: 'string' },
      seed: { type: 'string' },
      timeout: { type: 'string' },
      out: { type: 'string', default: 'loadtest-report' },
      slo: { type: 'string' },
      compare: { type: 'string' },
      'max-regression': { type: 'string', default: '10%' },
      'metrics-url': { type: 'string' },
      'i-own-this-target': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  })
  const scenario = SCENARIOS[values.scenario]
  if (!scenario) throw new UsageError(`unknown scenario "${values.scenario}": ${Object.keys(SCENARIOS).join(', ')}`)
  if (positionals.length > 1 || (positionals.length && !values.compare))
    throw new UsageError(`unexpected argument(s): ${positionals.join(' ')}`)
  if (values['client-id'] !== undefined || values['client-secret'] !== undefined) {
    throw new UsageError(
      '--client-secret puts the secret on the command line, which npm echoes and shells keep: set QUARRY_CLIENT_ID and QUARRY_CLIENT_SECRET instead',
    )
  }
  return {
    values,
    scenario,
    /** A second report to compare with --compare's, instead of a run. */
    compareWith: positionals[0],
    connections: Math.round(numberOption(values.connections, 'connections', 8) ?? 8),
    durationSeconds: numberOption(values.duration, 'duration', 30) ?? 30,
    amount: numberOption(values.amount, 'amount'),
    rate: numberOption(values.rate, 'rate'),
    seed: Math.round(numberOption(values.seed, 'seed', 1) ?? 1),
    timeoutSeconds: numberOption(values.timeout, 'timeout', 30) ?? 30,
    objectives: values.slo ? parseSlo(values.slo) : ([] as Objective[]),
    maxRegressionPercent: parsePercent(values['max-regression']),
  }
}

/** Runs the kit; resolves with the exit code (the bin below exits with it). */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const say = (line = '') => io.out.write(`${line}\n`)
  const fail = (message: string) => {
    io.err.write(`loadtest: ${message}\n`)
    return EXIT.refused
  }
  let cli: ReturnType<typeof parseCli>
  try {
    cli = parseCli(argv)
  } catch (error) {
    // Everything parseCli throws is about the arguments (node's parseArgs throws TypeErrors).
    return fail(`${(error as Error).message}\n\n${USAGE}`)
  }
  const { values } = cli
  if (values.help) {
    say(USAGE)
    return EXIT.ok
  }

  let previous: LoadReport | undefined
  try {
    previous = values.compare ? readReport(values.compare) : undefined
    if (previous && cli.compareWith) {
      const comparison = compareReports(previous, readReport(cli.compareWith), {
        against: String(values.compare),
        maxRegressionPercent: cli.maxRegressionPercent,
      })
      say(`${cli.compareWith} against ${values.compare}:\n`)
      say(comparisonLines(comparison).join('\n'))
      return comparison.regressed.length ? EXIT.missed : EXIT.ok
    }
  } catch (error) {
    if (error instanceof UnreadableReport) return fail(error.message)
    throw error
  }
  const url = (values.url ?? `http://127.0.0.1:${io.env.PORT || 3000}`).replace(/\/+$/, '')
  try {
    new URL(url)
  } catch {
    return fail(`--url "${url}" is not a URL`)
  }
  if (!isLoopback(url) && !values['i-own-this-target']) {
    return fail(
      `refusing to load ${url}: it is not on this machine. This kit sends real queries that cost the target real work; pass --i-own-this-target if it is yours to load.`,
    )
  }
  const credentials = resolveCredentials({ urlGiven: values.url !== undefined, env: io.env })
  if (!credentials)
    return fail(
      "no credentials: set QUARRY_CLIENT_ID and QUARRY_CLIENT_SECRET (without --url, the local demo gateway's .data/demo-credentials.json is read)",
    )
  const headers = { 'openpanel-client-id': credentials.clientId, 'openpanel-client-secret': credentials.clientSecret }

  let target: Awaited<ReturnType<typeof discoverTarget>>
  try {
    target = await discoverTarget(url, headers, values.project ?? credentials.projectId)
  } catch (error) {
    if (error instanceof DiscoveryError || error instanceof TypeError)
      return fail(`cannot reach the gateway at ${url} or find what to load: ${(error as Error).message}`)
    throw error
  }
  const policy = await readRateLimit(url, headers, target.projectId)
  const limited = policy && rateLimitProblem(policy, { connections: cli.connections, rate: cli.rate })
  if (limited) return fail(`not starting: ${limited}`)
  const metricsUrl = values['metrics-url'] ?? `http://${new URL(url).hostname}:${io.env.QUARRY_METRICS_PORT || 9464}/metrics`
  const before = await scrape(metricsUrl)

  say(
    `${cli.scenario.name} v${cli.scenario.version} against ${url}, project ${target.projectId} (${target.firstDay} to ${target.lastDay}), ${cli.connections} connections, ${cli.amount ? `${cli.amount} requests or ` : ''}${cli.durationSeconds} s${cli.rate ? `, ${cli.rate} req/s` : ''}, seed ${cli.seed}`,
  )
  const live = createLiveView(io.out as NodeJS.WriteStream)
  let connections = 0
  const result = await startLoad({
    url,
    headers,
    connections: cli.connections,
    durationSeconds: cli.durationSeconds,
    amount: cli.amount,
    rate: cli.rate,
    timeoutSeconds: cli.timeoutSeconds,
    // Each connection draws from its own seeded sequence, so a seed replays the same requests.
    connection: () => connectionOf(cli.scenario, target, seededRandom(cli.seed * 1000 + (connections += 1))),
    onTick: (progress) =>
      live(
        `${progress.seconds.toFixed(0)} s, ${progress.overall.requests} answers, ${progress.overall.errors} errors\n${renderTable(progress.routes)}`,
      ),
  }).done
  const after = before && (await scrape(metricsUrl))

  const report = buildReport({
    scenario: { name: cli.scenario.name, version: cli.scenario.version, description: cli.scenario.description },
    target: { url, ...target },
    options: {
      connections: cli.connections,
      durationSeconds: cli.durationSeconds,
      ...(cli.amount ? { amount: cli.amount } : {}),
      ...(cli.rate ? { rate: cli.rate } : {}),
      seed: cli.seed,
    },
    result,
    gateway: before && after ? gatewayView(metricsUrl, before, after) : null,
    slo: checkSlo(cli.objectives, result.overall),
  })
  let comparison: Comparison | undefined
  if (previous)
    report.comparison = comparison = compareReports(previous, report, {
      against: String(values.compare),
      maxRegressionPercent: cli.maxRegressionPercent,
    })

  live(renderTable(result.routes, result.overall), true)
  for (const notice of noticeLines(result.overall)) say(`\n${notice}`)
  say(`\nThe gateway's view:\n${gatewayLines(report.gateway).join('\n')}`)
  if (report.slo.length) say(`\nObjectives:\n${sloLines(report.slo).join('\n')}`)
  if (comparison) say(`\nAgainst ${comparison.against}:\n${comparisonLines(comparison).join('\n')}`)
  const files = writeReport(path.resolve(values.out), report)
  say(`\nWrote ${files.join(', ')}`)
  const missed = report.slo.filter((slo) => !slo.met)
  if (missed.length) say(`\nObjective(s) missed: ${missed.map((slo) => slo.objective).join(', ')}`)
  const limitedRun = mostlyRefused(result.overall)
  if (limitedRun) say(`\nNot a measure of the gateway: ${limitedRun}`)
  return missed.length || comparison?.regressed.length || limitedRun ? EXIT.missed : EXIT.ok
}

if (require.main === module) {
  main(process.argv.slice(2), { env: process.env, out: process.stdout, err: process.stderr }).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error)
      process.exit(EXIT.refused)
    },
  )
}
