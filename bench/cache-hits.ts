// The result cache per route, part of `npm run bench` (`npm run bench -- compare cache` runs it alone): for each
// route the bench asks, pairs of the same request, first fresh (`Cache-Control: no-cache`, which runs the
// statement and stores its rows) and then plain, which the cache should answer (`X-Cache: hit`). The pairs of
// all routes are interleaved in a new order each round, so that the shared machine's load falls on all alike.
import { Random } from '../test/support/random'
import { percentile } from './percentile'
import { QUESTIONS, WINDOW } from './questions'
import { PROJECT } from './setup'

const REPEATS = Number(process.env.QUARRY_BENCH_CACHE_REPEATS ?? 20)
const TARGET_MS = 3

const window = `startDate=${WINDOW.startDate}&endDate=${WINDOW.endDate}`
const insight = (path: string, extra = '') => `/insights/${PROJECT}/${path}?${window}${extra}`
const funnelSteps = new URLSearchParams([
  ['steps', 'screen_view'],
  ['steps', 'add_to_cart'],
  ['steps', 'purchase'],
]).toString()

/** The routes of the bench's other sections, each asked as they ask it (the behaviour ones with their shapes). */
const ROUTES: { name: string; url: string }[] = [
  ...QUESTIONS.map(({ name, url }) => ({ name, url })),
  { name: 'entry pages', url: insight('pages/entry_exit', '&mode=entry') },
  { name: 'exit pages', url: insight('pages/entry_exit', '&mode=exit') },
  { name: 'sessions list, first page', url: insight('sessions') },
  { name: 'funnel, 3 steps', url: insight('funnel', `&${funnelSteps}`) },
  {
    name: 'retention, 8 weekly cohorts',
    url: `/insights/${PROJECT}/retention?startDate=2025-10-06&endDate=2025-11-30&period=week&periods=8&detail=true`,
  },
  { name: 'paths, 5 steps', url: insight('paths', '&steps=5') },
  { name: 'events/names', url: insight('events/names') },
  { name: 'events/properties', url: insight('events/properties') },
  { name: 'events/property_values, key=product_id', url: insight('events/property_values', '&key=product_id') },
]
/**
 * For scale, in the same rounds: the gateway's cheapest answer (no authentication, no pipeline). `/live` is not a
 * row: its statement binds the clock, so no two requests share one.
 */
const FLOOR = '/health'

/** The compare mode's helpers: a checked GET to the gateway, the bench credentials, a seeded new order of n tasks. */
export interface CacheHitTools {
  get(path: string, headers: Record<string, string>): Promise<Response>
  auth: Record<string, string>
  shuffled(count: number, random: Random): number[]
}

/** One request's time and whether the cache answered it. */
async function timed(tools: CacheHitTools, url: string, headers: Record<string, string>): Promise<{ ms: number; hit: boolean }> {
  const started = performance.now()
  const res = await tools.get(url, headers)
  return { ms: performance.now() - started, hit: res.headers.get('x-cache') === 'hit' }
}

const figures = (values: number[]) => `${percentile(values, 50).toFixed(1)} | ${percentile(values, 95).toFixed(1)}`

/** Prints each route's fresh and cached p50/p95 over REPEATS pairs (after an untimed round), and how many repeats the cache answered. */
export async function cacheHits(tools: CacheHitTools): Promise<void> {
  const fresh = { ...tools.auth, 'cache-control': 'no-cache' }
  const samples = ROUTES.map(() => ({ miss: [] as number[], hit: [] as number[], answered: 0 }))
  const floor: number[] = []
  const random = new Random(REPEATS)
  for (let round = 0; round <= REPEATS; round += 1) {
    const health = await timed(tools, FLOOR, {})
    if (round > 0) floor.push(health.ms)
    for (const index of tools.shuffled(ROUTES.length, random)) {
      const miss = await timed(tools, ROUTES[index].url, fresh)
      const hit = await timed(tools, ROUTES[index].url, tools.auth)
      if (round === 0) continue
      samples[index].miss.push(miss.ms)
      samples[index].hit.push(hit.ms)
      if (hit.hit) samples[index].answered += 1
    }
  }
  const pairs = `${REPEATS} pairs of a fresh answer (no-cache) then the same request`
  console.log(`\nRepeated identical request, per route: ${pairs} (target: cached p50 <= ${TARGET_MS} ms)`)
  console.log('| route | fresh p50 ms | fresh p95 ms | cached p50 ms | cached p95 ms | from the cache | target |')
  console.log('|---|---|---|---|---|---|---|')
  ROUTES.forEach(({ name }, index) => {
    const { miss, hit, answered } = samples[index]
    const verdict = percentile(hit, 50) <= TARGET_MS ? 'met' : 'NOT met'
    console.log(`| ${name} | ${figures(miss)} | ${figures(hit)} | ${answered} of ${REPEATS} | ${verdict} |`)
  })
  console.log(
    `For scale, in the same rounds: ${FLOOR} ${percentile(floor, 50).toFixed(1)} ms p50, ${percentile(floor, 95).toFixed(1)} ms p95`,
  )
}
