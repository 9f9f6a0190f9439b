// Page-number paging over a total order: the statement reads one row past the page to know whether a
// next page exists.
import type { InsightQuery } from '../insights/insight-params'

export function pageParams(query: InsightQuery): { rowsToRead: number; offset: number } {
  return { rowsToRead: query.limit + 1, offset: (query.cursor - 1) * query.limit }
}

export function splitPage<T>(rows: T[], query: InsightQuery): { page: T[]; hasMore: boolean } {
  return { page: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
}
