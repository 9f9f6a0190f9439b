// `export`: raw events out of the gateway: keyset page walks (each answer's cursor asks for the next page,
// up to WALK_PAGES deep) and whole-window NDJSON and CSV streams, reported in rows per second.
import type { Target } from '../discover'
import type { Random } from '../random'
import type { Answer, RequestSpec } from '../runner'
import { drawWindow, type Scenario } from './scenario'

/** Pages a walk follows before it starts again on a new window. */
const WALK_PAGES = 10
const PAGE_LIMIT = 200
/** Stream windows stay short: a whole month of a busy project is a download, not a request. */
const STREAM_DAYS = [1, 2]
const WALK = 'page walk'

const lines = (body: string) => body.split('\n').filter((line) => line.length > 0).length
const pageRows = (body: string) => (JSON.parse(body) as { data: unknown[] }).data.length

function page(target: Target, window: string, depth: number, cursor?: string): RequestSpec {
  return {
    route: WALK,
    path: `/export/events?projectId=${encodeURIComponent(target.projectId)}&limit=${PAGE_LIMIT}&${window}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    countRows: pageRows,
    state: { window, depth },
  }
}

export const exportScenario: Scenario = {
  name: 'export',
  version: 1,
  description: `Keyset page walks of ${PAGE_LIMIT} events (up to ${WALK_PAGES} pages) and NDJSON and CSV streams of 1-2 day windows, in equal parts; rows per second are reported.`,
  kinds: [
    {
      route: WALK,
      weight: 1,
      build: (target, random) => {
        const { startDate, endDate } = drawWindow(target, random, [7])
        return page(target, `start=${startDate}&end=${endDate}`, 1)
      },
    },
    ...(['ndjson', 'csv'] as const).map((format) => ({
      route: `${format} stream`,
      weight: 1,
      build: (target: Target, random: Random): RequestSpec => {
        const { startDate, endDate } = drawWindow(target, random, STREAM_DAYS)
        return {
          route: `${format} stream`,
          path: `/export/events?projectId=${encodeURIComponent(target.projectId)}&format=${format}&start=${startDate}&end=${endDate}`,
          countRows: format === 'csv' ? (body) => Math.max(lines(body) - 1, 0) : lines,
        }
      },
    })),
  ],
  follow(previous: Answer, target: Target) {
    const walk = previous.spec.state
    if (previous.spec.route !== WALK || !walk || previous.status !== 200 || Number(walk.depth) >= WALK_PAGES) return undefined
    const cursor = (JSON.parse(previous.body) as { meta: { nextCursor?: string | null } }).meta.nextCursor
    return cursor ? page(target, String(walk.window), Number(walk.depth) + 1, cursor) : undefined
  },
}
