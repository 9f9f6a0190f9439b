// Reference model — the `filters` parameter: parsing/validation and matching of one text value.

import { OPERATORS } from '../../queries/core/filters'
import {
  DIMENSIONS,
  EVENT_FIELDS,
  SESSION_ATTRIBUTES,
  type Dimension,
  type EventField,
  type SessionAttribute,
} from '../../queries/core/registry'
import { parseStrictNumber } from './exact'

export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as Dimension[]

export const SESSION_ATTRIBUTE_NAMES = Object.keys(SESSION_ATTRIBUTES) as SessionAttribute[]

export const EVENT_FIELD_NAMES = Object.keys(EVENT_FIELDS) as EventField[]
export const PROPERTY_PREFIX = 'properties.'

export { OPERATORS }
export type Operator = (typeof OPERATORS)[number]

const NUMERIC_OPERATORS: readonly Operator[] = ['gt', 'lt', 'gte', 'lte']
const NO_VALUE_OPERATORS: readonly Operator[] = ['isNull', 'isNotNull']

export interface Filter {
  /** The filter name as given: a session attribute, an event field, or `properties.<key>`. */
  name: string
  /** 'session' = restricts sessions by their attributes; 'event' = an event-field filter. */
  kind: 'session' | 'event'
  operator: Operator
  /** Values as text (a JSON number is its decimal text, String(v)). */
  values: string[]
  /** For numeric operators: the values parsed as numbers. */
  numbers: number[]
  /** For `regex`: the compiled patterns. */
  patterns: RegExp[]
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Parses and validates `filters`; null means the request is a 400. */
export function parseFilters(text: string): Filter[] | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  if (!Array.isArray(parsed)) return null
  const out: Filter[] = []
  for (const item of parsed) {
    const f = parseOne(item)
    if (!f) return null
    out.push(f)
  }
  return out
}

function parseOne(item: unknown): Filter | null {
  if (!isPlainObject(item)) return null
  // Only the three documented keys; anything else is an unknown parameter (never silently dropped).
  for (const key of Object.keys(item)) if (!['name', 'operator', 'value'].includes(key)) return null
  const { name, operator, value } = item
  if (typeof name !== 'string' || typeof operator !== 'string') return null

  let kind: 'session' | 'event'
  if ((SESSION_ATTRIBUTE_NAMES as readonly string[]).includes(name)) kind = 'session'
  else if ((EVENT_FIELD_NAMES as readonly string[]).includes(name)) kind = 'event'
  else if (name.startsWith(PROPERTY_PREFIX) && name.length > PROPERTY_PREFIX.length) kind = 'event'
  else return null

  if (!(OPERATORS as readonly string[]).includes(operator)) return null
  const op = operator as Operator

  let rawValues: unknown[]
  if (value === undefined) rawValues = []
  else if (Array.isArray(value)) rawValues = value
  else return null
  const values: string[] = []
  for (const v of rawValues) {
    if (typeof v === 'string') values.push(v)
    else if (typeof v === 'number' && Number.isFinite(v)) values.push(String(v))
    else return null
  }

  if (NO_VALUE_OPERATORS.includes(op)) {
    if (values.length !== 0) return null
  } else if (values.length === 0) return null

  const numbers: number[] = []
  if (NUMERIC_OPERATORS.includes(op)) {
    if (!name.startsWith(PROPERTY_PREFIX)) return null
    for (const v of values) {
      const n = parseStrictNumber(v)
      if (n === null) return null
      numbers.push(n)
    }
  }

  const patterns: RegExp[] = []
  if (op === 'regex') {
    for (const v of values) {
      try {
        patterns.push(new RegExp(v))
      } catch {
        return null
      }
    }
  }

  return { name, kind, operator: op, values, numbers, patterns }
}

/** Whether the text value `x` passes filter `f`. */
export function matchValue(f: Filter, x: string): boolean {
  const lx = x.toLowerCase()
  switch (f.operator) {
    case 'is':
      return f.values.some((v) => x === v)
    case 'isNot':
      return f.values.every((v) => x !== v)
    case 'contains':
      return f.values.some((v) => lx.includes(v.toLowerCase()))
    case 'doesNotContain':
      return f.values.every((v) => !lx.includes(v.toLowerCase()))
    case 'startsWith':
      return f.values.some((v) => lx.startsWith(v.toLowerCase()))
    case 'endsWith':
      return f.values.some((v) => lx.endsWith(v.toLowerCase()))
    case 'regex':
      return f.patterns.some((re) => re.test(x))
    case 'isNull':
      return x === ''
    case 'isNotNull':
      return x !== ''
    case 'gt':
    case 'lt':
    case 'gte':
    case 'lte': {
      const n = parseStrictNumber(x)
      if (n === null) return false
      return f.numbers.some((v) => (f.operator === 'gt' ? n > v : f.operator === 'lt' ? n < v : f.operator === 'gte' ? n >= v : n <= v))
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Filter trees: `filters` as an object. `and` / `or` (non-empty lists) and `not` (one node) nest at most 4
// deep over session leaves (a filter item on a session attribute) and `performed` leaves (`{ name?,
// filters? }`: the session has an event with that name, any name without one, matching every event-field
// filter). At most 50 leaves, counting each session leaf, each performed leaf and each filter inside one;
// at most 20 regex patterns of 1,000 characters in all.

export type TreeNode =
  | { op: 'and' | 'or'; children: TreeNode[] }
  | { op: 'not'; child: TreeNode }
  | { op: 'session'; filter: Filter }
  | { op: 'performed'; name: string | null; filters: Filter[] }

const TREE_MAX_DEPTH = 4
const TREE_MAX_LEAVES = 50

function parseTreeNode(value: unknown, depth: number, counts: { leaves: number; filters: Filter[] }): TreeNode | null {
  if (!isPlainObject(value)) return null
  const keys = Object.keys(value)
  for (const op of ['and', 'or'] as const) {
    if (keys.includes(op)) {
      if (keys.length !== 1 || depth >= TREE_MAX_DEPTH) return null
      const list = value[op]
      if (!Array.isArray(list) || list.length === 0) return null
      const children: TreeNode[] = []
      for (const item of list) {
        const child = parseTreeNode(item, depth + 1, counts)
        if (!child) return null
        children.push(child)
      }
      return { op, children }
    }
  }
  if (keys.includes('not')) {
    if (keys.length !== 1 || depth >= TREE_MAX_DEPTH || !isPlainObject(value.not)) return null
    const child = parseTreeNode(value.not, depth + 1, counts)
    return child && { op: 'not', child }
  }
  if (keys.includes('performed')) {
    const performed = value.performed
    if (keys.length !== 1 || !isPlainObject(performed)) return null
    for (const key of Object.keys(performed)) if (key !== 'name' && key !== 'filters') return null
    const name = performed.name
    if (name !== undefined && (typeof name !== 'string' || name.length === 0 || [...name].length > 200)) return null
    if (performed.filters !== undefined && !Array.isArray(performed.filters)) return null
    const filters = parseFilters(JSON.stringify(performed.filters ?? []))
    if (!filters || filters.some((f) => f.kind !== 'event')) return null
    counts.leaves += 1 + filters.length
    counts.filters.push(...filters)
    return { op: 'performed', name: name === undefined ? null : (name as string), filters }
  }
  const leaf = parseFilters(JSON.stringify([value]))
  if (leaf?.[0].kind !== 'session') return null
  counts.leaves += 1
  counts.filters.push(leaf[0])
  return { op: 'session', filter: leaf[0] }
}

/** Parses `filters` as a tree (a JSON object); null means the request is a 400. */
export function parseFilterTree(text: string): TreeNode | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  const counts = { leaves: 0, filters: [] as Filter[] }
  const tree = parseTreeNode(parsed, 0, counts)
  if (!tree || counts.leaves > TREE_MAX_LEAVES) return null
  const patterns = counts.filters.filter((f) => f.operator === 'regex').flatMap((f) => f.values)
  if (patterns.length > 20 || patterns.reduce((sum, p) => sum + p.length, 0) > 1000) return null
  return tree
}

/** Whether `filters` is given as a tree (a JSON object) rather than the flat array. */
export function isTreeText(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text)
    return isPlainObject(parsed)
  } catch {
    return false
  }
}

/** What a tree reads of a session: an attribute of it, and an event field of each of its events. */
export interface TreeSubject {
  attribute(name: string): string
  events: { name: string; field(name: string): string }[]
}

/** Whether a session passes a tree. */
export function treeSelects(node: TreeNode, s: TreeSubject): boolean {
  switch (node.op) {
    case 'and':
      return node.children.every((child) => treeSelects(child, s))
    case 'or':
      return node.children.some((child) => treeSelects(child, s))
    case 'not':
      return !treeSelects(node.child, s)
    case 'session':
      return matchValue(node.filter, s.attribute(node.filter.name))
    case 'performed':
      return s.events.some((e) => (node.name === null || e.name === node.name) && node.filters.every((f) => matchValue(f, e.field(f.name))))
  }
}
