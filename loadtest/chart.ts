// latency.svg: each route's p50, p90, p99 and p99.9 as grouped horizontal bars, each latency objective as
// a vertical line, and the routes whose answers were mostly errors marked in their label (their bars
// time the errors, not the questions), drawn by Apache ECharts' server-side SVG renderer (no browser,
// no canvas: `ssr: true` with the SVG renderer returns a string).
import * as echarts from 'echarts'
import type { LoadReport } from './report-shape'
import type { RouteStats } from './runner'

const PERCENTILES = [
  { key: 'p50', name: 'p50' },
  { key: 'p90', name: 'p90' },
  { key: 'p99', name: 'p99' },
  { key: 'p99_9', name: 'p99.9' },
] as const

/** A route's label: its name, and when most of its answers were errors, their share and statuses. */
export function routeLabel(route: string, stats: RouteStats): string {
  if (!stats.requests || stats.errors * 2 <= stats.requests) return route
  const statuses = Object.keys(stats.statuses).filter((status) => !/^2\d\d$/.test(status))
  return `${route} (${Math.round((100 * stats.errors) / stats.requests)}% errors: ${statuses.join(', ')})`
}

export function latencyChart(report: LoadReport): string {
  const routes = ['overall', ...Object.keys(report.routes)]
  const stats = (route: string) => (route === 'overall' ? report.overall : report.routes[route])
  const objectives = report.slo.filter((slo) => slo.unit === 'ms')
  const height = 136 + routes.length * 44
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 900, height })
  // Listed bottom-up by ECharts: reversed so that `overall` is on top.
  const listed = [...routes].reverse()
  chart.setOption({
    animation: false,
    backgroundColor: '#ffffff',
    title: {
      text: `Latency by route: ${report.scenario.name} v${report.scenario.version}`,
      subtext: `${report.overall.requests} requests in ${report.seconds.toFixed(1)} s, ${report.options.connections} connections${report.options.rate ? `, ${report.options.rate} req/s` : ''}`,
      left: 'center',
    },
    legend: { top: 62, data: PERCENTILES.map((p) => p.name) },
    grid: { left: 280, right: 60, top: 96, bottom: 40 },
    xAxis: {
      type: 'value',
      name: 'ms',
      nameLocation: 'end',
      max: (extent: { max: number }) => Math.max(extent.max, ...objectives.map((slo) => slo.limit)),
    },
    yAxis: {
      type: 'category',
      data: listed.map((route) => routeLabel(route, stats(route))),
      axisLabel: { width: 260, overflow: 'truncate' },
    },
    series: PERCENTILES.map((p, index) => ({
      name: p.name,
      type: 'bar',
      data: listed.map((route) => stats(route).latency[p.key]),
      // The objectives are drawn once, with the first series.
      ...(index === 0 && objectives.length
        ? {
            markLine: {
              symbol: 'none',
              lineStyle: { color: '#c00', type: 'dashed' },
              label: { formatter: '{b}', position: 'end' },
              data: objectives.map((slo) => ({ name: slo.objective, xAxis: slo.limit })),
            },
          }
        : {}),
    })),
  })
  const svg = chart.renderToSVGString()
  chart.dispose()
  return svg
}
