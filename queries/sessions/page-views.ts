// The settled days' stored page views, as `/pages` reads them: which days they answer, and their rows (page
// rows per session, page and quarter hour, or their rollup per page and hour; queries/sessions/reads.ts).
import { assertNever } from '../core/errors'
import { compileInner, sqlOnly, type Fragment } from '../core/compiled'
import type { PageReads } from './reads'
import { viewMatch } from './session-sets'
import type { SessionSource } from './source'

/**
 * `view_days`, `view_compactions` and the range of views the statement orders itself (`order_from`,
 * `order_to`), and the stored views of those days, as pages.sql's `page_parts`: the page rollup (fewer rows,
 * the same answers; docs/measurements.md, "Pages") or the page rows, those kept by `sessions`. With `events`,
 * no day, and the rows with a condition that reads no view field.
 */
export function storedPageViews(source: SessionSource, reads: PageReads, sessions: Fragment): { days: Fragment; pages: Fragment } {
  const { params } = source
  const settledDays = compileInner('sessions/view-days-settled.sql', params)
  switch (reads) {
    case 'events':
      return {
        days: compileInner('sessions/view-days-none.sql', params),
        pages: compileInner('sessions/pages-settled-rows.sql', params, { settled_view_match: sqlOnly('0'), view_sessions: sessions }),
      }
    case 'rollup':
      return { days: settledDays, pages: compileInner('sessions/pages-settled-rollup.sql', params, { settled_view_match: viewMatch(source.question) }) }
    case 'settled':
      return { days: settledDays, pages: compileInner('sessions/pages-settled-rows.sql', params, { settled_view_match: viewMatch(source.question), view_sessions: sessions }) }
    default:
      return assertNever(reads)
  }
}
