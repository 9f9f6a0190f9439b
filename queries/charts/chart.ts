// `GET /export/charts`: the chart pipeline, parse -> plan -> compile (one statement) -> run -> shape.
import { chartSchema, parseChart, type ChartRequest, type PlannedChart } from './chart-params'
import { compileChart } from './chart-compiler'
import { capChartCells, decideChartFilters, decideChartReads, resolvePreviousWindow } from './chart-plan'
import { shapeChart, type ChartRow } from './chart-shape'
import { pickInterval } from '../core/dates'
import { planSteps, type Resource } from '../core/pipeline'

export const chart: Resource<ChartRequest, PlannedChart, ChartRow> = {
  name: 'charts',
  schema: chartSchema,
  parse: parseChart,
  plan: planSteps(pickInterval, resolvePreviousWindow, capChartCells, decideChartFilters, decideChartReads),
  compile: compileChart,
  shape: (rows, query) => ({ body: shapeChart(rows, query) }),
}
