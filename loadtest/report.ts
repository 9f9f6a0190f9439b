// The three files a run leaves in `--out`: report.json (everything measured), report.md (a summary a
// person reads, with the table, the gateway's view, the objectives and the chart) and latency.svg.
import fs from 'node:fs'
import path from 'node:path'
import { latencyChart } from './chart'
import type { GatewayView } from './prometheus'
import { REPORT_FORMAT, type Comparison, type LoadReport } from './report-shape'
import type { LoadResult, RouteStats } from './runner'
import type { SloResult } from './slo'
import { HEADER, rowsOf } from './table'

export function buildReport(
  parts: Omit<LoadReport, 'format' | 'overall' | 'routes' | 'startedAt' | 'seconds'> & { result: LoadResult },
): LoadReport {
  const { result, ...rest } = parts
  return {
    format: REPORT_FORMAT,
    ...rest,
    startedAt: result.startedAt,
    seconds: result.seconds,
    overall: result.overall,
    routes: result.routes,
  }
}

const markdownTable = (header: string[], rows: string[][]) =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n')
const percent = (value: number | null) => (value === null ? '-' : `${value >= 0 ? '+' : ''}${value.toFixed(1)}%`)

export function gatewayLines(view: GatewayView | null): string[] {
  if (!view) return ["The gateway's metrics listener could not be reached: no gateway view (see --metrics-url)."]
  const time = (share: { count: number; meanMs: number; seconds: number }) =>
    `${share.count} × ${share.meanMs.toFixed(1)} ms mean (${share.seconds.toFixed(1)} s in all)`
  return [
    `- HTTP: ${time(view.http)}`,
    `- engine statements: ${time(view.engine)}${view.http.seconds ? `, ${((100 * view.engine.seconds) / view.http.seconds).toFixed(0)}% of the HTTP time` : ''}`,
    view.queueWait ? `- queue wait: ${time(view.queueWait)}` : '- queue wait: not reported by this gateway',
    `- result cache: ${view.cache.hits} hits, ${view.cache.misses} misses${view.cache.hitRate === null ? '' : ` (${(100 * view.cache.hitRate).toFixed(1)}% hit rate)`}`,
  ]
}

/** Warnings about answers that say more about the gateway's limits than about its speed. */
export function noticeLines(overall: RouteStats): string[] {
  const share = (status: string) => (overall.requests ? (100 * (overall.statuses[status] ?? 0)) / overall.requests : 0)
  return [
    ...(share('429') > 5
      ? [
          `${share('429').toFixed(0)}% of the answers were 429: the gateway's per-client rate limit (QUARRY_RATE_LIMIT, 100 requests per 10 s by default) or its cap on one client's queries at once (QUARRY_MAX_CONCURRENT_QUERIES, 8). They come back fast and pull the percentiles down: raise those limits for a load test, or lower --rate or --connections.`,
        ]
      : []),
    ...(share('503') > 5
      ? [
          `${share('503').toFixed(0)}% of the answers were 503: the engine's queue was full (QUARRY_ENGINE_QUEUE); the gateway is past its capacity at this load.`,
        ]
      : []),
  ]
}

export function sloLines(results: SloResult[]): string[] {
  return results.map(
    (result) =>
      `- ${result.met ? 'met' : 'MISSED'}: ${result.objective} (actual ${result.actual.toFixed(result.unit === '%' ? 3 : 1)} ${result.unit})`,
  )
}

export function comparisonLines(comparison: Comparison): string[] {
  const rows = comparison.routes.map((route) => [
    route.route,
    `${route.p50.before} → ${route.p50.after} (${percent(route.p50.change)})`,
    `${route.p99.before} → ${route.p99.after} (${percent(route.p99.change)})`,
    `${route.rps.before.toFixed(1)} → ${route.rps.after.toFixed(1)} (${percent(route.rps.change)})`,
    `${route.errors.before} → ${route.errors.after}`,
    route.regressed ? 'REGRESSED' : '',
  ])
  return [
    ...(comparison.scenarioChange
      ? [`Different scenarios (${comparison.scenarioChange}): the same route asks different questions in each.`]
      : []),
    markdownTable(['route', 'p50 ms', 'p99 ms', 'req/s', 'errors', ''], rows),
    ...(comparison.onlyBefore.length ? [`Only in ${comparison.against}: ${comparison.onlyBefore.join(', ')}`] : []),
    ...(comparison.onlyAfter.length ? [`Only in this run: ${comparison.onlyAfter.join(', ')}`] : []),
    comparison.regressed.length
      ? `Regressed past ${comparison.maxRegressionPercent}% (p50 or p99): ${comparison.regressed.join(', ')}`
      : `No route's p50 or p99 grew past ${comparison.maxRegressionPercent}%.`,
  ]
}

export function markdownOf(report: LoadReport): string {
  const { options } = report
  return [
    `# Load test: ${report.scenario.name} (scenario version ${report.scenario.version})`,
    '',
    `${report.target.url}, project \`${report.target.projectId}\` (events ${report.target.firstDay} to ${report.target.lastDay}); started ${report.startedAt}, ran ${report.seconds.toFixed(1)} s with ${options.connections} connections, ${options.rate ? `${options.rate} requests/s` : 'closed loop'}, seed ${options.seed}.`,
    '',
    report.scenario.description,
    '',
    markdownTable(HEADER, rowsOf(report.routes, report.overall)),
    '',
    ...noticeLines(report.overall).flatMap((line) => [line, '']),
    "## The gateway's view (Prometheus, over the same interval)",
    '',
    ...gatewayLines(report.gateway),
    ...(report.slo.length ? ['', '## Objectives', '', ...sloLines(report.slo)] : []),
    ...(report.comparison ? ['', `## Against ${report.comparison.against}`, '', ...comparisonLines(report.comparison)] : []),
    '',
    '![latency by route](latency.svg)',
    '',
  ].join('\n')
}

export function writeReport(dir: string, report: LoadReport): string[] {
  fs.mkdirSync(dir, { recursive: true })
  const files = {
    'report.json': `${JSON.stringify(report, null, 2)}\n`,
    'report.md': markdownOf(report),
    'latency.svg': latencyChart(report),
  }
  return Object.entries(files).map(([name, text]) => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, text)
    return file
  })
}
