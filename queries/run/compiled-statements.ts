// A question's statement compiled once: `compile` is pure in the planned query (it reads no clock, settings or
// scope beyond what the plan put in the query), so a question asked again, the same resource and the same planned
// query, gets the statement compiled the first time. The result cache finds its rows by that statement, so a
// repeated request is answered without compiling anything.
import { LRUCache } from 'lru-cache'
import type { CompiledQuery } from '../core/compiled'
import type { Resource } from '../core/pipeline'

/** Memory for kept statements: their SQL, params and keys as JSON text, two bytes a character. */
const MAX_BYTES = 16 * 1024 * 1024

/** A value the key cannot tell from others: JSON would write a Map or a class instance as `{}` and drop a function. */
class Unkeyable extends Error {}

/** A value as JSON that says its type: every composite one a list whose first item names it. */
function tagged(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number')
    return Number.isFinite(value) && !Object.is(value, -0) ? value : ['Number', Object.is(value, -0) ? '-0' : String(value)]
  if (value === undefined) return ['undefined']
  if (value instanceof Date) return ['Date', value.getTime()]
  if (Array.isArray(value)) return ['Array', ...value.map(tagged)]
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>
    return [
      'Object',
      ...Object.keys(record)
        .sort()
        .flatMap((name) => [name, tagged(record[name])]),
    ]
  }
  throw new Unkeyable()
}

/**
 * A planned query as text, equal for equal queries whatever the order of their keys, and different for queries
 * that differ in anything (a date and its ISO string, a key set to `undefined` and a key not there); `undefined`
 * when the query holds a value of another kind than plain objects, arrays, strings, numbers, booleans, null,
 * `undefined` and dates.
 */
export function plannedKey(query: unknown): string | undefined {
  try {
    return JSON.stringify(tagged(query))
  } catch (error) {
    if (error instanceof Unkeyable) return undefined
    throw error
  }
}

export class CompiledStatements {
  private readonly statements = new LRUCache<string, CompiledQuery>({
    maxSize: MAX_BYTES,
    sizeCalculation: (statement, key) => 2 * (key.length + statement.sql.length + JSON.stringify(statement.params).length),
  })

  /** `resource`'s statement for `query` with no day settled: compiled now, or the one compiled for an equal query. */
  of<Planned>(resource: Resource<unknown, Planned>, query: Planned): CompiledQuery {
    const planned = plannedKey(query)
    if (planned === undefined) return resource.compile(query)
    const key = `${resource.name}\n${planned}`
    const kept = this.statements.get(key)
    if (kept) return kept
    const statement = resource.compile(query)
    this.statements.set(key, statement)
    return statement
  }
}
