// Valid behaviour questions and filter trees drawn up to their caps, for `npm run bench -- fuzz`: funnels of up
// to MAX_STEPS steps (`*` and named, with filters), retention over up to MAX_PERIODS periods, paths of up to
// MAX_PATH_STEPS steps and 100 nodes, and metrics, pages and paths filtered by trees of up to MAX_TREE_LEAVES
// leaves nested MAX_TREE_DEPTH deep, `performed` leaves among them, over windows of up to a year. Each must be
// answered or refused with a 4xx (a cap) or 503/504 (a limit), never a 500.
import { MAX_STEPS, MAX_WINDOW_HOURS } from '../queries/behaviour/funnel'
import { MAX_PATH_STEPS } from '../queries/behaviour/paths'
import { MAX_PERIODS, PERIODS } from '../queries/behaviour/retention'
import { MAX_TREE_DEPTH, MAX_TREE_LEAVES } from '../queries/core/filter-tree'
import { Random } from '../test/support/random'

const EVENT_NAMES = ['*', 'screen_view', 'add_to_cart', 'purchase', 'signup', 'search']
const EVENT_FILTERS = [
  { name: 'path', operator: 'contains', value: ['pricing'] },
  { name: 'path', operator: 'regex', value: ['^/(blog|docs)/'] },
  { name: 'properties.price', operator: 'gt', value: [10] },
  { name: 'country', operator: 'is', value: ['DE', 'FR'] },
]
/** A `performed` leaf's filters read the event's own columns: no session attribute such as `country`. */
const PERFORMED_FILTERS = EVENT_FILTERS.filter((filter) => filter.name !== 'country')
const SESSION_LEAVES = [
  { name: 'device', operator: 'is', value: ['mobile'] },
  { name: 'country', operator: 'isNot', value: ['DE'] },
  { name: 'referrer_name', operator: 'isNull', value: [] },
]
/** Windows over the golden data and around it, up to a year. */
const WINDOWS = [
  { startDate: '2024-03-27', endDate: '2024-04-02' },
  { startDate: '2024-03-01', endDate: '2024-03-31' },
  { startDate: '2023-04-03', endDate: '2024-04-01' },
]

function step(random: Random): object {
  const name = random.pick(EVENT_NAMES)
  return random.chance(0.4) ? { name, filters: [random.pick(EVENT_FILTERS)] } : { name }
}

/** A tree of at most `leaves` leaves, `depth` levels of and/or/not left. */
function tree(random: Random, leaves: { left: number }, depth: number): object {
  if (depth === 0 || leaves.left <= 2 || random.chance(0.25)) {
    leaves.left -= 1
    if (random.chance(0.5)) return random.pick(SESSION_LEAVES)
    const filters = random.chance(0.5) && leaves.left > 0 ? [random.pick(PERFORMED_FILTERS)] : []
    leaves.left -= filters.length
    return { performed: { name: random.pick(EVENT_NAMES.slice(1)), filters } }
  }
  if (random.chance(0.15)) return { not: tree(random, leaves, depth - 1) }
  const children: object[] = []
  for (let n = random.int(2, 12); n > 0 && leaves.left > 0; n -= 1) children.push(tree(random, leaves, depth - 1))
  return { [random.pick(['and', 'or'])]: children }
}

/** Paths with query strings of valid questions up to their caps; the same seed gives the same requests. */
export function* cappedRequests(options: { seed: number; projectId: string }): Generator<string> {
  const random = new Random(options.seed)
  const treeFilter = () =>
    JSON.stringify(tree(random, { left: random.chance(0.5) ? MAX_TREE_LEAVES : random.int(1, MAX_TREE_LEAVES) }, MAX_TREE_DEPTH))
  for (;;) {
    const query = new URLSearchParams(random.pick(WINDOWS))
    const kind = random.pick(['funnel', 'retention', 'paths', 'tree'])
    if (kind === 'funnel') {
      query.set(
        'steps',
        JSON.stringify(Array.from({ length: random.chance(0.5) ? MAX_STEPS : random.int(2, MAX_STEPS) }, () => step(random))),
      )
      query.set('windowHours', String(random.chance(0.5) ? MAX_WINDOW_HOURS : random.int(1, MAX_WINDOW_HOURS)))
      if (random.chance(0.3)) query.set('breakdown', random.pick(['country', 'properties.plan']))
    } else if (kind === 'retention') {
      // Quarry's cohort table: its parameters are taken with detail=true (docs/openpanel.md, "When shapes collide").
      query.set('detail', 'true')
      query.set('period', random.pick(PERIODS))
      query.set('periods', String(random.chance(0.5) ? MAX_PERIODS : random.int(1, MAX_PERIODS)))
      query.set('startEvent', JSON.stringify(step(random)))
      if (random.chance(0.5)) query.set('returnEvent', JSON.stringify(step(random)))
      query.set('criteria', random.pick(['on', 'on_or_after']))
    } else if (kind === 'paths') {
      query.set('steps', String(random.chance(0.5) ? MAX_PATH_STEPS : random.int(2, MAX_PATH_STEPS)))
      query.set('limit', String(random.chance(0.5) ? 100 : random.int(1, 100)))
      query.set('node', random.pick(['page', 'event']))
      if (random.chance(0.3)) query.set('start', JSON.stringify(step(random)))
      if (random.chance(0.3)) query.set('filters', treeFilter())
    } else query.set('filters', treeFilter())
    const route = kind === 'tree' ? random.pick(['metrics', 'pages', 'referrer']) : kind
    yield `/insights/${options.projectId}/${route}?${query}`
  }
}
