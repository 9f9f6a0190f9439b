// `--compare previous.json`: each route's change against an earlier report, and whether any route's p50 or
// p99 latency grew past `--max-regression`.
import type { Comparison, LoadReport, RouteChange } from './report-shape'
import type { RouteStats } from './runner'

/** Percent change from `before` to `after`; null when `before` is 0. */
const changeOf = (before: number, after: number) => (before ? (100 * (after - before)) / before : null)

function routeChange(route: string, before: RouteStats, after: RouteStats, maxRegressionPercent: number): RouteChange {
  const p50 = { before: before.latency.p50, after: after.latency.p50, change: changeOf(before.latency.p50, after.latency.p50) }
  const p99 = { before: before.latency.p99, after: after.latency.p99, change: changeOf(before.latency.p99, after.latency.p99) }
  return {
    route,
    p50,
    p99,
    rps: { before: before.rps, after: after.rps, change: changeOf(before.rps, after.rps) },
    errors: { before: before.errors, after: after.errors },
    regressed: [p50.change, p99.change].some((change) => change !== null && change > maxRegressionPercent),
  }
}

export function compareReports(
  before: LoadReport,
  after: LoadReport,
  options: { against: string; maxRegressionPercent: number },
): Comparison {
  const routes = [
    routeChange('overall', before.overall, after.overall, options.maxRegressionPercent),
    ...Object.keys(after.routes)
      .filter((route) => before.routes[route])
      .map((route) => routeChange(route, before.routes[route], after.routes[route], options.maxRegressionPercent)),
  ]
  const name = (report: LoadReport) => `${report.scenario.name} v${report.scenario.version}`
  return {
    ...(name(before) === name(after) ? {} : { scenarioChange: `${name(before)} -> ${name(after)}` }),
    against: options.against,
    maxRegressionPercent: options.maxRegressionPercent,
    routes,
    onlyBefore: Object.keys(before.routes).filter((route) => !after.routes[route]),
    onlyAfter: Object.keys(after.routes).filter((route) => !before.routes[route]),
    regressed: routes.filter((route) => route.regressed).map((route) => route.route),
  }
}

/** `10%` or `10` -> 10. */
export function parsePercent(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text.trim())
  if (!match) throw new Error(`cannot read "${text}" as a percentage (write e.g. 10%)`)
  return Number(match[1])
}
