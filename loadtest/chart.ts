// latency.svg: each route's p50, p90, p99 and p99.9 as grouped horizontal bars, drawn by Apache ECharts'
// server-side SVG renderer (no browser, no canvas: `ssr: true` with the SVG renderer returns a string).
import * as echarts from 'echarts'
import type { LoadReport } from './report-shape'

const PERCENTILES = [
  { key: 'p50', name: 'p50' },
  { key: 'p90', name: 'p90' },
  { key: 'p99', name: 'p99' },
  { key: 'p99_9', name: 'p99.9' },
] as const

export function latencyChart(report: LoadReport): string {
  const routes = ['overall', ...Object.keys(report.routes)]
  const stats = (route: string) => (route === 'overall' ? report.overall : report.routes[route])
  const height = 136 + routes.length * 44
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 900, height })
  chart.setOption({
    animation: false,
    backgroundColor: '#ffffff',
    title: { text: `Latency by route: ${report.scenario.name} v${report.scenario.version}`, subtext: `${report.overall.requests} requests in ${report.seconds.toFixed(1)} s, ${report.options.connections} connections${report.options.rate ? `, ${report.options.rate} req/s` : ''}`, left: 'center' },
    legend: { top: 62, data: PERCENTILES.map((p) => p.name) },
    grid: { left: 220, right: 40, top: 96, bottom: 40 },
    xAxis: { type: 'value', name: 'ms', nameLocation: 'end' },
    // Listed bottom-up by ECharts: reversed so that `overall` is on top.
    yAxis: { type: 'category', data: [...routes].reverse(), axisLabel: { width: 200, overflow: 'truncate' } },
    series: PERCENTILES.map((p) => ({ name: p.name, type: 'bar', data: [...routes].reverse().map((route) => stats(route).latency[p.key]) })),
  })
  const svg = chart.renderToSVGString()
  chart.dispose()
  return svg
}
