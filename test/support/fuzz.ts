// Seeded junk requests for every parameter of every route: the one generator behind the bad-input test
// (a few rounds in CI) and `bench/fuzz.ts` (10,000 requests).
import { ROUTES, schemaOf } from '../../server/http/routes'
import { Random } from './random'

export const JUNK = [
  '', ' ', 'null', '[]', '{}', '[{}]', '[{"name":"country"}]', '-1', '0', '1e309', '99999999999999999999', 'NaN', 'true',
  "'; DROP TABLE events; --", '\\', '\u0000', '%', '😀', 'ü'.repeat(3000), '[{"name":"path","operator":"regex","value":["("]}]',
  '[{"name":"properties.x","operator":"gt","value":[1e400]}]', '2024-02-30', '2024-03-31T02:30:00+01:00', '9999-12-31', 'Europe/Nowhere',
  '[{"name":"*","segment":"property_sum","property":"properties.\'"}]', '[{"type":"formula","formula":"A/0"}]', 'A'.repeat(100000),
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
