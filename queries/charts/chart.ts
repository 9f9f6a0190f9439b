// `GET /export/charts`: the chart pipeline, parse -> plan -> compile (one statement) -> run -> shape.
import { chartSchema, parseChart, type ChartQuery, type ChartRequest } from './chart-params'
import { compileChart } from './chart-compiler'
import { capChartCells, resolvePreviousWindow } from './chart-plan'
import { shapeChart, type ChartRow } from './chart-shape'
import { pickInterval } from '../core/dates'
import { planSteps, type Resource } from '../core/pipeline'

export const chart: Resource<ChartRequest, ChartQuery> = {
  name: 'charts',
  schema: chartSchema,
  parse: parseChart,
  plan: planSteps(pickInterval, resolvePreviousWindow, capChartCells),
  compile: compileChart,
  shape: (rows, query) => ({ body: shapeChart(rows as unknown as ChartRow[], query) }),
}
