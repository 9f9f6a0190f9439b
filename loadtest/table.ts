// The terminal table: one row per route and the overall row, redrawn in place while a load runs.
import Table from 'cli-table3'
import type { RouteStats } from './runner'

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1))
const statusText = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .filter(([status]) => !/^2\d\d$/.test(status))
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ') || '-'
export const bytesText = (bytes: number) =>
  bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} kB`

export const HEADER = ['route', 'requests', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'errors by status', 'bytes', 'rows/s']

/** A row of cells per route (overall last), for the terminal and the Markdown summary alike. */
export function rowsOf(routes: Record<string, RouteStats>, overall?: RouteStats): string[][] {
  const row = (route: string, stats: RouteStats) => [
    route,
    String(stats.requests),
    stats.rps.toFixed(1),
    ms(stats.latency.p50),
    ms(stats.latency.p90),
    ms(stats.latency.p99),
    ms(stats.latency.p99_9),
    statusText(stats.statuses),
    bytesText(stats.bytes),
    stats.rowsPerSecond === undefined ? '-' : stats.rowsPerSecond.toFixed(0),
  ]
  return [...Object.entries(routes).map(([route, stats]) => row(route, stats)), ...(overall ? [row('overall', overall)] : [])]
}

export function renderTable(routes: Record<string, RouteStats>, overall?: RouteStats): string {
  const table = new Table({ head: HEADER, style: { head: [], border: [], compact: true } })
  table.push(...rowsOf(routes, overall))
  return table.toString()
}

/**
 * On a terminal, draws `text` over what the previous call drew; elsewhere (a file, CI) writes only the
 * final text, so that a log holds one table rather than one a second.
 */
export function createLiveView(stream: NodeJS.WriteStream): (text: string, final?: boolean) => void {
  let lines = 0
  return (text, final = false) => {
    if (!stream.isTTY && !final) return
    if (lines) stream.write(`\x1b[${lines}A\x1b[0J`)
    stream.write(`${text}\n`)
    lines = text.split('\n').length
  }
}
