// Typed literals: a value written into SQL text as a constant of its placeholder's type, for statements
// that must carry their values in their text. A compaction's statements do: embedded, a statement with
// bound parameters holds chDB's one process-wide chain of them while it runs, and on a cluster DDL runs
// ON CLUSTER and a build is re-sent to every shard, both as text. Only typed values reach here, each
// checked against its type, so text never becomes SQL.
import type { CompiledQuery, Params } from './compiled'
import { placeholdersOf } from './templates'

type Value = Params[string]

const INTEGER = /^U?Int(8|16|32|64|128|256)$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,9})?$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DATETIME_TYPE = /^DateTime(64\(\d(, ?'[\w/+-]+')?\)|\('[\w/+-]+'\))?$/

/** A string as a single-quoted SQL literal: backslashes and quotes escaped. */
export const stringLiteral = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

/** A name as a back-quoted SQL identifier. */
const identifier = (name: string): string => `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``

/** A scalar's literal text, checked against its type, and whether it needs a CAST to carry that type. */
function bare(value: Value, type: string, where: string): { text: string; cast: boolean } {
  const fail = (): never => {
    throw new Error(`${where}: ${JSON.stringify(value)} is not a ${type}`)
  }
  if (type === 'String') return { text: typeof value === 'string' ? stringLiteral(value) : fail(), cast: false }
  if (type === 'Identifier') return { text: typeof value === 'string' && value !== '' ? identifier(value) : fail(), cast: false }
  if (type === 'Bool') return { text: typeof value === 'boolean' ? String(value) : fail(), cast: false }
  if (INTEGER.test(type)) {
    const text =
      typeof value === 'number' && Number.isSafeInteger(value)
        ? String(value)
        : typeof value === 'string' && /^-?\d+$/.test(value)
          ? value
          : fail()
    const bits = BigInt(/\d+$/.exec(type)?.[0] ?? '64')
    const [low, high] = type.startsWith('U') ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n]
    if (BigInt(text) < low || BigInt(text) > high) fail()
    return { text, cast: true }
  }
  if (type === 'Float32' || type === 'Float64')
    return { text: typeof value === 'number' && Number.isFinite(value) ? String(value) : fail(), cast: true }
  if (type === 'Date' || type === 'Date32')
    return { text: typeof value === 'string' && DATE.test(value) ? stringLiteral(value) : fail(), cast: true }
  if (type === 'UUID') return { text: typeof value === 'string' && UUID.test(value) ? stringLiteral(value) : fail(), cast: true }
  if (DATETIME_TYPE.test(type))
    return { text: typeof value === 'string' && DATETIME.test(value) ? stringLiteral(value) : fail(), cast: true }
  throw new Error(`${where}: no typed literal for ${type}`)
}

/** `value` as a SQL constant of `type` (a placeholder's type: a scalar, or an Array of one). */
export function typedLiteral(value: Value, type: string, where = 'typed literal'): string {
  const array = /^Array\((.+)\)$/.exec(type)
  if (array) {
    if (!Array.isArray(value)) throw new Error(`${where}: ${JSON.stringify(value)} is not an ${type}`)
    const items = (value as (string | number)[]).map((item) => bare(item, array[1].trim(), where).text)
    return `CAST([${items.join(', ')}] AS ${type})`
  }
  const { text, cast } = bare(value, type, where)
  return cast ? `CAST(${text} AS ${type})` : text
}

/** `query` with every placeholder written as the typed literal of its bound value, binding nothing. */
export function inlineParams(query: CompiledQuery): CompiledQuery {
  const types = placeholdersOf(query.sql)
  const sql = query.sql.replace(/\{(\w+):([^{}]+?)\}/g, (_, name: string) => {
    if (!(name in query.params)) throw new Error(`${query.template}: placeholder ${name} is unbound`)
    return typedLiteral(query.params[name], types.get(name) ?? '', `${query.template} {${name}}`)
  })
  return Object.freeze({ ...query, sql, params: Object.freeze({}) })
}
