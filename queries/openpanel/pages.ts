// `GET /insights/:projectId/pages/top` and `/pages/performance` (OpenPanel's): the page rows of `/pages`,
// as a bare array of every page (top), or as `{ total_pages, shown, pages }` with OpenPanel's signals.
import { compileTemplate } from '../core/compiled'
import { PAGE_SORTS, SORT_ORDERS } from '../insights/page-order'
import { pages } from '../insights/pages'
import { percent, ratioOrNull } from '../core/rounding'
import { adapt, openpanelDateProperties, withOpenPanelWindow } from './adapt'

/** OpenPanel answers every page (at most 1,000); so does a request without `limit`. */
export const TOP_PAGES_DEFAULT_LIMIT = 1000
/** Every row of a statement (its LIMIT's largest value but one: it reads one past the page). */
const EVERY_PAGE = 0xffff_fffe

const pageLimit = (fallback: number, maximum: number) => ({ type: 'integer', minimum: 1, maximum, default: fallback })

export const topPages = adapt(pages, {
  name: 'openpanel.pages.top',
  own: { ...openpanelDateProperties, limit: pageLimit(TOP_PAGES_DEFAULT_LIMIT, 1000) },
  toBase: (own, rest, scope) => withOpenPanelWindow({ ...rest, ...own }, scope),
  reshape: (answer) => answer,
  compare: pages.compare,
})

/**
 * OpenPanel's signals of a page, from its thresholds (percent, minutes); a page without a figure (no
 * session entered there, no view followed by another) has none of the signals that need it, and low
 * engagement when no view of it was followed by another.
 */
function seoSignals(bounceRate: number | null, avgMinutes: number | null) {
  return {
    high_bounce: bounceRate !== null && bounceRate > 70,
    low_engagement: avgMinutes === null || avgMinutes < 1,
    good_landing_page: bounceRate !== null && bounceRate < 40 && avgMinutes !== null && avgMinutes > 2,
  }
}

const adaptedPages = adapt(pages, {
  name: 'openpanel.pages.performance',
  own: {
    ...openpanelDateProperties,
    search: { type: 'string', maxLength: 200 },
    sortBy: { type: 'string', enum: PAGE_SORTS, default: 'sessions' },
    sortOrder: { type: 'string', enum: SORT_ORDERS, default: 'desc' },
    limit: pageLimit(50, 500),
  },
  // OpenPanel's first page only: its answer is an object, which names no next page.
  passes: ['timezone', 'filters'],
  toBase: (own, rest, scope) => withOpenPanelWindow({ ...rest, ...own }, scope),
  reshape: (answer) => answer,
})

export const pagePerformance: typeof adaptedPages = {
  ...adaptedPages,
  // Every page's row, counted: OpenPanel's `total_pages` (it counts at most 1,000).
  alongside: (query) => ({
    count: compileTemplate('openpanel/page-count.sql', {}, { listed_pages: pages.compile({ ...query, limit: EVERY_PAGE, cursor: 1 }) }),
  }),
  shape(rows, query, others = {}) {
    const shown = rows.slice(0, query.limit).map((row) => {
      const entered = Number(row.entered)
      const bounceRate = entered === 0 ? null : percent(Number(row.entered_bounced), entered)
      // OpenPanel's unit here: minutes from a view to the next one.
      const avgMinutes = ratioOrNull(Number(row.gap_total_ms), Number(row.with_next) * 60_000)
      return {
        origin: row.origin,
        path: row.path,
        title: row.latest_title,
        sessions: Number(row.session_count),
        pageviews: Number(row.view_count),
        avg_duration: avgMinutes,
        bounce_rate: bounceRate,
        seo_signals: seoSignals(bounceRate, avgMinutes),
      }
    })
    return { body: { total_pages: Number(others.count?.[0]?.total_pages ?? 0), shown: shown.length, pages: shown } }
  },
}
