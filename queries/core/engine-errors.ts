// How engine failures become typed QueryErrors: the ClickHouse error code (a server's error, or the
// `Code: N.` that opens a chDB message) decides the gateway's code, and so the HTTP status.
import { QueryError } from './errors'

const TIMEOUT = new Set([159, 160])
const CANNOT_COMPILE_REGEXP = 427
/** Result or read caps: TOO_MANY_ROWS (158), TOO_MANY_BYTES (307), TOO_MANY_ROWS_OR_BYTES (396). */
const TOO_MANY_ROWS_OR_BYTES = 396
const TOO_MANY_ROWS = new Set([158, 307, TOO_MANY_ROWS_OR_BYTES])
const MEMORY_LIMIT_EXCEEDED = 241
/** The engine itself is short of room: CANNOT_ALLOCATE_MEMORY (173), TOO_MANY_SIMULTANEOUS_QUERIES (202). */
const ENGINE_BUSY = new Set([173, 202])
const QUERY_WAS_CANCELLED = 394
const SYNTAX_ERROR = 62
const TOO_BIG_AST = 168
const UNAVAILABLE = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|socket hang up|Timeout error/i

/** The ClickHouse error code of an engine failure, if it carries one. */
export function engineCodeOf(error: unknown): number | undefined {
  const code = Number((error as { code?: unknown })?.code)
  if (Number.isInteger(code) && code > 0) return code
  const match = /^Code: (\d+)\./.exec(String((error as Error)?.message ?? ''))
  return match ? Number(match[1]) : undefined
}

const narrow = (message: string) => [{ path: [], message }]
/**
 * The statement is longer than the engine takes (max_query_size, max_ast_elements): the request's size. Of
 * what a request sizes, only a filter tree's leaves grow a statement by much (each adds its test and its
 * condition once, queries/core/filter-tree.ts), so that is what it names.
 */
const tooBig = () =>
  new QueryError('too_costly', 'The query is larger than the engine accepts', [
    { path: ['filters'], message: 'narrow the filter tree: fewer leaves, or fewer filters inside its performed leaves' },
  ])
const tooMuchMemory = () =>
  new QueryError(
    'too_costly',
    'The query needs more memory than one statement may use',
    narrow('narrow the date range, the filters or the breakdowns'),
  )

export function toQueryError(error: unknown): unknown {
  if (error instanceof QueryError) return error
  const code = engineCodeOf(error)
  const message = String((error as Error)?.message ?? '')
  // TRICKY: 62 is every syntax error; only the size limit's message is the request's fault, any other is the
  // gateway's own SQL (a 500).
  if (code === TOO_BIG_AST || (code === SYNTAX_ERROR && /Max query size exceeded/i.test(message))) return tooBig()
  if (code !== undefined && TIMEOUT.has(code)) return new QueryError('timeout', 'The query took longer than the time limit')
  // JavaScript accepts some patterns RE2 does not (look-arounds, back-references).
  if (code === CANNOT_COMPILE_REGEXP) {
    return new QueryError('invalid_request', 'A regular expression in "filters" is not valid RE2 syntax', [
      { path: ['filters'], message: 'regex values must be RE2 patterns (no look-around or back-references)' },
    ])
  }
  // The same code caps what a GROUP BY spills to disk once past half the memory cap: still memory.
  if (code === TOO_MANY_ROWS_OR_BYTES && /temporary files/i.test(message)) return tooMuchMemory()
  if (code !== undefined && TOO_MANY_ROWS.has(code)) {
    return new QueryError(
      'too_costly',
      'The answer has more rows than one statement may return',
      narrow('narrow the date range or the filters, or page with "cursor"'),
    )
  }
  // TRICKY: 241 is raised both for one statement's cap (max_memory_usage: the request's fault) and for
  // the engine's total (the whole server is short of memory: retry later). Only the message tells them apart.
  if (code === MEMORY_LIMIT_EXCEEDED) {
    if (/\(total\)/.test(message)) return new QueryError('overloaded', 'The engine is short of memory; retry shortly')
    return tooMuchMemory()
  }
  if (code !== undefined && ENGINE_BUSY.has(code)) return new QueryError('overloaded', 'The engine is busy; retry shortly')
  if (code === QUERY_WAS_CANCELLED) return new QueryError('cancelled', 'The query was cancelled')
  if (UNAVAILABLE.test(message) || (error as { code?: unknown })?.code === 'ECONNREFUSED') {
    return new QueryError('engine_unavailable', 'ClickHouse is not reachable')
  }
  return error
}
