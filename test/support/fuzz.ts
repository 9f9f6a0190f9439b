// Seeded junk requests for every parameter of every route: the one generator behind the bad-input test
// (a few rounds in CI) and `bench/fuzz.ts` (10,000 requests).
import { ROUTES, schemaOf } from '../../server/routes/routes'
import { Random } from './random'

export const JUNK = [
  '',
  ' ',
  'null',
  '[]',
  '{}',
  '[{}]',
  '[{"name":"country"}]',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  'NaN',
  'true',
  "'; DROP TABLE events; --",
  '\\',
  '\u0000',
  '%',
  '😀',
  'ü'.repeat(3000),
  '[{"name":"path","operator":"regex","value":["("]}]',
  '[{"name":"properties.x","operator":"gt","value":[1e400]}]',
  '2024-02-30',
  '2024-03-31T02:30:00+01:00',
  '9999-12-31',
  'Europe/Nowhere',
  '[{"name":"*","segment":"property_sum","property":"properties.\'"}]',
  '[{"type":"formula","formula":"A/0"}]',
  'A'.repeat(100000),
] as const

export interface FuzzOptions {
  seed: number
  /** Requests per route. */
  rounds: number
  /** The project the valid parts of a request name. */
  projectId: string
}

/** Paths with query strings, `rounds` per route in route order; the same seed gives the same requests. */
export function* junkRequests(options: FuzzOptions): Generator<string> {
  const random = new Random(options.seed)
  for (const route of ROUTES) {
    const names = Object.keys((schemaOf(route) as { properties?: object }).properties ?? {})
    for (let n = 0; n < options.rounds; n += 1) {
      const query = new URLSearchParams()
      for (const name of names) if (random.chance(0.4)) query.append(name, random.pick(JUNK))
      if (random.chance(0.2)) query.append(random.pick(names.length ? names : ['x']), random.pick(JUNK))
      if (random.chance(0.1)) query.append('unknown', '1')
      if (route.path.startsWith('/export') && random.chance(0.7)) query.set('projectId', options.projectId)
      yield `${route.path.replace(':projectId', random.chance(0.9) ? options.projectId : random.pick(JUNK) || 'x')}?${query}`
    }
  }
}

const PROBE_SERIES = [{ name: 'screen_view' }, { name: 'add_to_cart' }, { name: '*', segment: 'user' }]
const PROBE_FORMULAS = ['A*0', 'A*100', 'A/B', 'B-A', '(A+B)/2', 'A-1.5']

/**
 * Valid chart requests over a few series and windows, varying only what the chart's shaping reads (formula
 * items, their formulas and display names): many share a statement, so a cache that answered one with
 * another's answer shows as a mismatch against the same request asked fresh.
 */
export function* cacheProbes(
  options: Omit<FuzzOptions, 'rounds'> & { count: number; windows: { startDate: string; endDate: string }[] },
): Generator<string> {
  const random = new Random(options.seed)
  for (let n = 0; n < options.count; n += 1) {
    const series: Record<string, unknown>[] = PROBE_SERIES.slice(0, random.int(1, PROBE_SERIES.length)).map((item) =>
      random.chance(0.4) ? { ...item, displayName: `Series ${random.int(1, 3)}` } : item,
    )
    for (let formulas = random.int(0, 2); formulas > 0; formulas -= 1) {
      series.push({
        type: 'formula',
        formula: random.pick(PROBE_FORMULAS),
        ...(random.chance(0.5) ? { displayName: `Formula ${random.int(1, 3)}` } : {}),
      })
    }
    const query = new URLSearchParams({ projectId: options.projectId, ...random.pick(options.windows), series: JSON.stringify(series) })
    if (random.chance(0.3)) query.set('interval', random.pick(['hour', 'day']))
    yield `/export/charts?${query}`
  }
}
