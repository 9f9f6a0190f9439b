// `GET /insights/:projectId/table`: the window's kept sessions grouped by 1 to 3 dimensions (session attributes,
// the entry and exit paths), with 1 to 8 metrics each, ordered by one of them, as flat rows. A row's key is the
// tuple of its dimension values (`tableRowKey`), by which compare (the previous window's rows) matches rows.
import { listCompare } from '../core/compare'
import type { Rows } from '../core/rows.generated'
import { splitPage } from '../core/paging'
import { planSteps, type Resource } from '../core/pipeline'
import { percent, ratio } from '../core/rounding'
import { sessionStatement } from '../sessions/source'
import { decideFilters, widenForSessions } from './insight-params'
import { parseTableParams, TABLE_METRICS, tableSchema, type TableDimension, type TableMetric, type TableQuery } from './table-params'
import { compileTable, type PlannedTable } from './table-sql'

type TableRow = Rows['insights/table.sql']

/** Each metric's value in the answer, from its row (rounded as the breakdowns round). */
const METRIC_VALUES = {
  visitors: (row) => Number(row.visitor_count),
  sessions: (row) => Number(row.session_count),
  pageviews: (row) => Number(row.view_count),
  bounce_rate: (row) => percent(Number(row.bounced), Number(row.session_count)),
  avg_session_duration: (row) => ratio(Number(row.duration_total_ms), Number(row.session_count) * 1000),
  views_per_session: (row) => ratio(Number(row.view_count), Number(row.session_count)),
  events: (row) => Number(row.event_count),
  revenue: (row) => Number(row.revenue_total),
  conversion_rate: (row) => percent(Number(row.converted_visitors), Number(row.visitor_count)),
} as const satisfies Record<TableMetric, (row: TableRow) => number>

const DIMENSION_COLUMNS = ['dimension_1', 'dimension_2', 'dimension_3'] as const

/** An answered row: each dimension's value (null where empty), then each metric's. */
export type TableAnswerRow = Record<string, string | number | null>

/** A row's key: its dimension values in the order asked, as JSON text (the same tuple, the same key). */
export const tableRowKey = (row: TableAnswerRow, dimensions: readonly TableDimension[]): string =>
  JSON.stringify(dimensions.map((dimension) => row[dimension]))

function answerRow(row: TableRow, query: TableQuery): TableAnswerRow {
  const answer: TableAnswerRow = {}
  query.dimensions.forEach((dimension, index) => {
    const value = row[DIMENSION_COLUMNS[index]]
    answer[dimension] = value === '' ? null : value
  })
  for (const metric of query.metrics) answer[metric] = METRIC_VALUES[metric](row)
  return answer
}

export const table: Resource<TableQuery, PlannedTable, TableRow> = {
  name: 'table',
  schema: tableSchema,
  parse: parseTableParams,
  plan: planSteps(widenForSessions, decideFilters),
  ...sessionStatement(compileTable),
  // A row's key is its dimension values (every field of a row that is not a metric, in the order asked).
  compare: listCompare<TableQuery, PlannedTable>({
    fields: (query) => query.metrics,
    keyOf: (row) => JSON.stringify(Object.entries(row).filter(([name]) => !(TABLE_METRICS as readonly string[]).includes(name))),
    restrict: (parsed, rows) => ({
      ...parsed,
      kept: {
        of: 'table',
        keys: rows.map((row) => parsed.dimensions.map((dimension) => (row[dimension] === null ? '' : String(row[dimension])))),
      },
    }),
  }),
  shape(rawRows, query) {
    const { page, hasMore } = splitPage(rawRows, query)
    return { body: page.map((row) => answerRow(row, query)), hasMore }
  },
}
