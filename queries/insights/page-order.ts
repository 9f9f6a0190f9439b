// The order and search of `/pages`: `sortBy` picks a column from a closed table (never from request
// text), `sortOrder` its direction, `search` a bound substring of the page's path or title.
import { keptKeysCondition } from '../core/compare'
import { sqlOnly, type Fragment } from '../core/compiled'
import type { Scope } from '../core/pipeline'
import { compileSchema } from '../core/validate'
import { comparedSchema, parseWithOwnParams, type InsightQuery } from './insight-params'

export const PAGE_SORTS = ['sessions', 'pageviews', 'bounce_rate', 'avg_duration'] as const
export type PageSort = (typeof PAGE_SORTS)[number]
export const SORT_ORDERS = ['desc', 'asc'] as const
export type SortOrder = (typeof SORT_ORDERS)[number]

/** A pages request: the insights parameters, with its order and search. */
export interface PagesQuery extends InsightQuery {
  sortBy: PageSort
  sortOrder: SortOrder
  search?: string
}

const SEARCH_MAX_LENGTH = 200

const orderProperties = {
  sortBy: {
    type: 'string',
    enum: PAGE_SORTS,
    default: 'sessions',
    description: 'The measure rows are ordered by; ties by origin, then path',
  },
  sortOrder: {
    type: 'string',
    enum: SORT_ORDERS,
    default: 'desc',
    description: 'Direction of `sortBy`; rows without a value (null) come last either way',
  },
  search: {
    type: 'string',
    maxLength: SEARCH_MAX_LENGTH,
    description: 'Keeps the pages whose path or title contains this text, ignoring case',
  },
}

export const pagesSchema = { ...comparedSchema, properties: { ...comparedSchema.properties, ...orderProperties } }

const validateOrder = compileSchema({ type: 'object', properties: orderProperties })

/**
 * Page rows' sort keys, as the response shows them: bounce rate and mean gap in hundredths, rounded half
 * up in integers as the response rounds them (core/rounding.ts), so rows that show equal values are tied
 * and fall back to origin and path. Null where the response says null.
 */
const SORT_KEYS = {
  sessions: { sql: 'session_count', nullable: false },
  pageviews: { sql: 'view_count', nullable: false },
  // TRICKY: intDiv throws on a zero divisor even in the branch `if` does not take for that row; intDivOrZero
  // never does, and the zero it gives there is replaced by NULL.
  bounce_rate: {
    sql: 'if(entered_all = 0, NULL, intDivOrZero(20000 * entered_bounced_all + entered_all, 2 * entered_all))',
    nullable: true,
  },
  avg_duration: { sql: 'if(with_next = 0, NULL, intDivOrZero(200 * gap_total_ms + 1000 * with_next, 2000 * with_next))', nullable: true },
} as const satisfies Record<PageSort, { sql: string; nullable: boolean }>

const DIRECTIONS = { desc: 'DESC', asc: 'ASC' } as const satisfies Record<SortOrder, string>

/** The order and search, beside the shared parameters. */
const ORDER_PARAMS = {
  names: ['sortBy', 'sortOrder', 'search'],
  validator: validateOrder,
  read(own: Record<string, unknown>) {
    const typed = own as { sortBy: PageSort; sortOrder: SortOrder; search?: string }
    return { sortBy: typed.sortBy, sortOrder: typed.sortOrder, ...(typed.search ? { search: typed.search } : {}) }
  },
}

/** Parses a pages request; every problem, of the shared parameters and of the order, is in one 400. */
export const parsePagesParams = (raw: Record<string, unknown>, scope: Scope): PagesQuery =>
  parseWithOwnParams(raw, scope, ORDER_PARAMS, 'compared')

/** `ORDER BY` of pages.sql: the sort key, nulls last, then origin and path ascending (a total order). */
export function pageOrder(query: PagesQuery): Fragment {
  const key = SORT_KEYS[query.sortBy]
  return sqlOnly(`${key.sql} ${DIRECTIONS[query.sortOrder]}${key.nullable ? ' NULLS LAST' : ''}, origin ASC, path ASC`)
}

/**
 * `WHERE` of pages.sql keeping the rows whose path or title contains `search`, ignoring case, and of a compared
 * question the kept pages only; nothing without either.
 */
export function pageSearch(query: PagesQuery): Fragment {
  const columns = ['origin', 'path']
  if (query.search === undefined) return keptKeysCondition(query.kept, columns, '\nWHERE')
  const search =
    'position(lowerUTF8(path), lowerUTF8({search:String})) > 0 OR position(lowerUTF8(latest_title), lowerUTF8({search:String})) > 0'
  const kept = keptKeysCondition(query.kept, columns, ' AND')
  return {
    sql: kept.sql ? `\nWHERE (${search})${kept.sql}` : `\nWHERE ${search}`,
    params: { search: query.search, ...kept.params },
  }
}
