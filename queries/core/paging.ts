// Page-number paging over a total order: the statement reads one row past the page to know whether a
// next page exists.

/** A paged request: rows a page, and the 1-based page number (`cursor`). */
export interface Paged {
  limit: number
  cursor: number
}

export function pageParams(query: Paged): { rowsToRead: number; offset: number } {
  return { rowsToRead: query.limit + 1, offset: (query.cursor - 1) * query.limit }
}

export function splitPage<T>(rows: readonly T[], query: Paged): { page: T[]; hasMore: boolean } {
  return { page: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
}
