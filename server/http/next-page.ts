// Where the next page of an answer is: the parameters that change for it, which a GET sends as a `Link`
// header (RFC 8288, `rel="next"`) and a batch result as its `next`, so a bare array can be paged as an
// object is.
import type { Request } from 'express'

/** What an answer says of the page after it (queries/core/pipeline.ts, `Answer`). */
interface Paging {
  hasMore?: boolean
  next?: Record<string, string>
}

/**
 * The parameters to change for the next page, none on the last: a keyset answer's own, else the next page
 * number after the request's `cursor` (1 when absent).
 */
export function nextPageParams(answer: Paging, query: Record<string, unknown>): Record<string, string> | undefined {
  if (answer.next) return answer.next
  if (!answer.hasMore) return undefined
  return { cursor: String(Number(query.cursor ?? '1') + 1) }
}

/** The same request with `params` changed, as a path: built from the request path alone, never its Host header. */
export function nextPageLink(req: Request, params: Record<string, string>): string {
  const url = new URL(req.originalUrl, 'http://localhost')
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
  return `<${url.pathname}${url.search}>; rel="next"`
}
