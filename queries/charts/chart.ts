// `GET /export/charts`: the chart pipeline, parse -> compile (one statement) -> run -> shape.
import { chartSchema, parseChart, type ChartQuery } from './chart-params'
import { compileChart } from './chart-compiler'
import { shapeChart, type ChartRow } from './chart-shape'
import type { Resource } from '../core/pipeline'

export const chart: Resource<ChartQuery> = {
  name: 'charts',
  schema: chartSchema,
  parse: parseChart,
  plan: [],
  compile: compileChart,
  shape: (rows, query) => ({ body: shapeChart(rows as unknown as ChartRow[], query) }),
}
