// The 400 a request would get, without an engine: its issues as `path: message` lines.
import assert from 'node:assert/strict'
import { QueryError } from '../../queries/core/errors'
import { prepare, type Resource, type Scope } from '../../queries/core/pipeline'

/** The shop project of the unit tests, in Berlin, on 2024-03-31 at noon UTC. */
export const SHOP_SCOPE: Scope = {
  project: { id: 'shop', name: 'Shop', timezone: 'Europe/Berlin' },
  now: new Date('2024-03-31T12:00:00Z'),
  sessionLookbackMs: 86_400_000,
}

/** Fails unless `raw` is refused with a 400; returns every issue it lists. */
export function requestIssues<Q>(resource: Resource<Q>, raw: Record<string, unknown>, scope: Scope = SHOP_SCOPE): string[] {
  try {
    prepare(resource, raw, scope)
  } catch (error) {
    assert.ok(error instanceof QueryError && error.code === 'invalid_request', String(error))
    return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
  }
  assert.fail('expected a 400')
}
