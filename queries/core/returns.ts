// A template's `-- @returns` header read as data: the columns of its rows with their ClickHouse types, as
// `DESCRIBE (statement)` prints them, so a test can compare them with the engine and a script can write
// the rows' TypeScript types (server/admin/row-types.ts). The prose about the rows follows on the next lines.
//
//   -- @returns origin LowCardinality(String), path String,    (a line ending in "," goes on on the next)
//   --   view_count UInt64
//   -- @returns id String, name String, @includes             (then the columns marker @includes adds)
//   -- @returns nothing (insert)                               (no rows: DDL, INSERT, a mutation)
//   -- @returns fragment: ...                                  (compiled into other statements, never run alone)

/** A column type as the engine prints it, read into its parts. */
export type ColumnType =
  | { kind: 'scalar'; name: string }
  | { kind: 'enum'; labels: string[] }
  | { kind: 'nullable' | 'low_cardinality' | 'array'; inner: ColumnType }
  | { kind: 'map'; key: ColumnType; value: ColumnType }
  | { kind: 'tuple'; elements: { name?: string; type: ColumnType }[] }

export interface Column {
  name: string
  /** As written in the header (and as DESCRIBE prints it). */
  type: string
}

/** What a template's statement returns. */
export type Returns =
  | { kind: 'nothing' }
  | { kind: 'fragment' }
  /** `rest`: a marker of the template whose fragment adds more columns after `columns` (export.events' `includes`). */
  | { kind: 'columns'; columns: Column[]; rest?: string }

const SCALARS = [
  String.raw`String|FixedString\(\d+\)|U?Int(8|16|32|64|128|256)|Float(32|64)|Decimal(32|64|128|256)?\(\d+(, ?\d+)?\)|Bool|UUID|IPv4|IPv6`,
  String.raw`Date|Date32|DateTime(\('[\w/+-]+'\))?|DateTime64\(\d(, ?'[\w/+-]+')?\)`,
]
const SCALAR = new RegExp(`^(${SCALARS.join('|')})$`)
const WRAPPERS = { Nullable: 'nullable', LowCardinality: 'low_cardinality', Array: 'array' } as const

/** `text` cut at the commas outside parentheses and quotes, each part trimmed. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at]
    if (char === "'") quoted = !quoted
    else if (!quoted && char === '(') depth += 1
    else if (!quoted && char === ')') depth -= 1
    else if (!quoted && depth === 0 && char === ',') {
      parts.push(text.slice(start, at).trim())
      start = at + 1
    }
  }
  parts.push(text.slice(start).trim())
  return parts
}

/** A column type read into its parts, or undefined when it is not one this gateway knows. */
export function parseColumnType(type: string): ColumnType | undefined {
  if (SCALAR.test(type)) return { kind: 'scalar', name: type }
  const enumeration = /^Enum(8|16)\((.+)\)$/.exec(type)
  if (enumeration) {
    const labels = splitTopLevel(enumeration[2]).map((item) => /^'((?:[^'\\]|\\.)*)' = -?\d+$/.exec(item)?.[1])
    const known = labels.filter((label): label is string => label !== undefined)
    return known.length === labels.length ? { kind: 'enum', labels: known } : undefined
  }
  const call = /^(\w+)\((.*)\)$/.exec(type)
  if (!call) return undefined
  const [, outer, inside] = call
  if (Object.hasOwn(WRAPPERS, outer)) {
    const inner = parseColumnType(inside.trim())
    return inner && { kind: WRAPPERS[outer as keyof typeof WRAPPERS], inner }
  }
  const args = splitTopLevel(inside)
  if (outer === 'Map' && args.length === 2) {
    const [key, value] = args.map(parseColumnType)
    return key && value && { kind: 'map', key, value }
  }
  if (outer !== 'Tuple') return undefined
  const elements = args.map((arg) => {
    const unnamed = parseColumnType(arg)
    if (unnamed) return { type: unnamed }
    const named = /^(\w+) (.+)$/.exec(arg)
    const type = named && parseColumnType(named[2])
    return type ? { name: named[1], type } : undefined
  })
  const known = elements.filter((element): element is { name?: string; type: ColumnType } => element !== undefined)
  return known.length === elements.length ? { kind: 'tuple', elements: known } : undefined
}

const NEEDS_COLUMNS = '"-- @returns" needs a column list (name Type, ...), "nothing" or "fragment:" and the prose on the next lines'

/** The text after `-- @returns `, with the continuation lines of a column list ending in ",". */
function headerText(text: string): string | undefined {
  const lines = text.split('\n')
  const first = lines.findIndex((line) => line.startsWith('-- @returns '))
  if (first === -1) return undefined
  let header = lines[first].slice('-- @returns '.length).trim()
  for (let next = first + 1; header.endsWith(',') && lines[next]?.startsWith('--'); next += 1)
    header += ` ${lines[next].replace(/^--\s*/, '').trim()}`
  return header
}

/** What a template's `@returns` declares, or the problems of its header (none when there is no header: checked apart). */
export function readReturns(text: string, markers: readonly string[]): { returns?: Returns; problems: string[] } {
  const header = headerText(text)
  if (header === undefined) return { problems: [] }
  if (/^nothing\b/.test(header)) return { returns: { kind: 'nothing' }, problems: [] }
  if (/^fragment:/.test(header)) return { returns: { kind: 'fragment' }, problems: [] }
  const items = splitTopLevel(header)
  const rest = /^@(\w+)$/.exec(items.at(-1) ?? '')?.[1]
  const listed = rest ? items.slice(0, -1) : items
  const columns = listed.flatMap((item) => {
    const pair = /^(\w+) ([A-Z]\w*(\(.*\))?)$/.exec(item)
    return pair ? [{ name: pair[1], type: pair[2] }] : []
  })
  if (!listed.length || columns.length < listed.length) return { problems: [NEEDS_COLUMNS] }
  const problems = columns
    .filter((column) => !parseColumnType(column.type))
    .map((column) => `"-- @returns" column ${column.name} has an unknown type ${column.type}`)
  const names = columns.map((column) => column.name)
  for (const name of new Set(names.filter((name, index) => names.indexOf(name) !== index)))
    problems.push(`"-- @returns" names the column ${name} twice`)
  if (rest && !markers.includes(rest)) problems.push(`"-- @returns" ends in @${rest}, which is not a marker of the template`)
  return { returns: { kind: 'columns', columns, ...(rest ? { rest } : {}) }, problems }
}
