// Filter trees (docs/api/filters.md): `filters` given as `{ "and": [...] }`, `{ "or": [...] }` or
// `{ "not": f }` over session-attribute leaves and `{ "performed": { name?, filters? } }` leaves. A tree
// selects sessions; parsing lists every problem with the path of its node, caps the tree before anything
// runs, and compiling gives one condition over a session row (its `s_<column>` attributes and session_id).
import { compileInner, mergeParams, sqlOnly, type Fragment, type Params } from './compiled'
import { assertNever, type Issue } from './errors'
import { compileFilter, filterItemSchema, parseFilterItem, parseFilterList, readFilters, type Filter, type SortedFilters } from './filters'
import { patternsUnder, regexIssues, type RegexPattern } from './regex-budget'
import type { SessionAttribute } from './registry'
import { compileSchema, schemaIssues } from './validate'

/** What a `performed` leaf asks: the session has an event with this name (any without one) matching every filter. */
export interface Performed {
  name?: string
  filters: Filter[]
}

export type FilterTree =
  | { kind: 'and'; children: FilterTree[] }
  | { kind: 'or'; children: FilterTree[] }
  | { kind: 'not'; child: FilterTree }
  | { kind: 'session'; filter: Filter }
  | { kind: 'performed'; performed: Performed }

/** Combinators nested above a leaf, at most: `{ "and": [{ "or": [{ "not": { "and": [leaf] } }] }] }` is 4. */
export const MAX_TREE_DEPTH = 4
/** Leaves of a tree, at most: each session leaf, each `performed` leaf and each filter inside one. */
export const MAX_TREE_LEAVES = 50

const EVENT_NAME = { type: 'string', minLength: 1, maxLength: 200 }

/** The node shapes, each checked alone as the parser walks down (so every issue names its node). */
const NODE_SCHEMAS = {
  and: {
    type: 'object',
    additionalProperties: false,
    required: ['and'],
    properties: { and: { type: 'array', minItems: 1, maxItems: MAX_TREE_LEAVES } },
  },
  or: {
    type: 'object',
    additionalProperties: false,
    required: ['or'],
    properties: { or: { type: 'array', minItems: 1, maxItems: MAX_TREE_LEAVES } },
  },
  not: { type: 'object', additionalProperties: false, required: ['not'], properties: { not: { type: 'object' } } },
  performed: {
    type: 'object',
    additionalProperties: false,
    required: ['performed'],
    properties: {
      performed: {
        type: 'object',
        additionalProperties: false,
        properties: { name: EVENT_NAME, filters: { type: 'array', maxItems: MAX_TREE_LEAVES } },
      },
    },
  },
} as const
type Combinator = keyof typeof NODE_SCHEMAS
const VALIDATORS = Object.fromEntries(
  (Object.keys(NODE_SCHEMAS) as Combinator[]).map((kind) => [kind, compileSchema(NODE_SCHEMAS[kind], { coerce: false, keyNoun: 'key' })]),
) as Record<Combinator, ReturnType<typeof compileSchema>>

/**
 * The tree as one JSON Schema (for /openapi.json), built from the node shapes above with `ref` naming the
 * tree itself wherever a node holds nodes.
 */
export function filterTreeSchema(ref: string): object {
  const { and, or, not, performed } = NODE_SCHEMAS
  return {
    oneOf: [
      { ...and, properties: { and: { ...and.properties.and, items: { $ref: ref } } } },
      { ...or, properties: { or: { ...or.properties.or, items: { $ref: ref } } } },
      { ...not, properties: { not: { $ref: ref } } },
      {
        ...performed,
        properties: {
          performed: {
            ...performed.properties.performed,
            properties: {
              ...performed.properties.performed.properties,
              filters: { ...performed.properties.performed.properties.filters, items: filterItemSchema },
            },
          },
        },
      },
      filterItemSchema,
    ],
  }
}

/**
 * The `filters` query parameter of the questions that take trees. /openapi.json tells it by identity and
 * publishes what its JSON text holds (a flat array or a tree).
 */
export const TREE_FILTERS_PROPERTY = {
  type: 'string',
  description:
    'URL-encoded JSON: a flat array of filters, ANDed, or a filter tree of and, or, not, session leaves and performed leaves (docs/api/filters.md)',
}

/** A node's path as text, `filters.or[1].not.performed.name`. */
export const pathText = (path: (string | number)[]): string =>
  path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('')

/** Issues of the node at `path`, each message naming the path it is about. */
const named = (issues: Issue[]): Issue[] => issues.map((issue) => ({ ...issue, message: `${pathText(issue.path)}: ${issue.message}` }))

interface Walk {
  issues: Issue[]
  leaves: number
  /** The regex patterns of its leaves, for the request's regex check. */
  patterns: RegexPattern[]
}

function kindOf(value: Record<string, unknown>): Combinator | 'session' {
  for (const kind of Object.keys(NODE_SCHEMAS) as Combinator[]) if (Object.hasOwn(value, kind)) return kind
  return 'session'
}

function parsePerformed(raw: { name?: string; filters?: unknown[] }, path: (string | number)[], walk: Walk): FilterTree | undefined {
  const parsed = parseFilterList(raw.filters ?? [])
  const issues = parsed.issues.map((issue) => ({ ...issue, path: [...path, 'performed', ...issue.path] }))
  parsed.filters.forEach((filter, index) => {
    if (filter.target.kind === 'session') {
      issues.push({
        path: [...path, 'performed', 'filters', index, 'name'],
        message: `"${filter.target.attribute}" describes sessions: give it as a session leaf of the tree, not inside "performed"`,
      })
    }
  })
  walk.leaves += 1 + (raw.filters?.length ?? 0)
  walk.patterns.push(...patternsUnder([...path, 'performed'], parsed.patterns))
  walk.issues.push(...named(issues))
  return issues.length
    ? undefined
    : { kind: 'performed', performed: { ...(raw.name === undefined ? {} : { name: raw.name }), filters: parsed.filters } }
}

function parseSessionLeaf(value: unknown, path: (string | number)[], walk: Walk): FilterTree | undefined {
  walk.leaves += 1
  const { filter, issues, patterns } = parseFilterItem(value, path)
  walk.patterns.push(...patterns)
  if (filter && filter.target.kind !== 'session') {
    issues.push({
      path: [...path, 'name'],
      message: `"${(value as { name: string }).name}" is an event field: a tree's event conditions go inside a "performed" leaf`,
    })
  }
  walk.issues.push(...named(issues))
  return issues.length ? undefined : filter && { kind: 'session', filter }
}

function parseNode(value: unknown, path: (string | number)[], depth: number, walk: Walk): FilterTree | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    walk.issues.push(
      ...named([
        {
          path,
          message: 'a tree node is an object: { "and": [...] }, { "or": [...] }, { "not": ... }, { "performed": ... } or a session filter',
        },
      ]),
    )
    return undefined
  }
  const kind = kindOf(value as Record<string, unknown>)
  if (kind === 'session') return parseSessionLeaf(value, path, walk)
  const shape = schemaIssues(VALIDATORS[kind], value, path)
  walk.issues.push(...named(shape))
  if (kind === 'performed') {
    // The filters of a misshapen leaf are checked too, so that the 400 lists their problems as well.
    const performed = (value as { performed: unknown }).performed as { name?: string; filters?: unknown[] }
    const checked =
      typeof performed === 'object' && performed !== null && (performed.filters === undefined || Array.isArray(performed.filters))
    const leaf = checked ? parsePerformed(performed, path, walk) : undefined
    return shape.length ? undefined : leaf
  }
  if (shape.length) return undefined
  if (depth >= MAX_TREE_DEPTH) {
    walk.issues.push(...named([{ path, message: `a tree nests at most ${MAX_TREE_DEPTH} levels of "and", "or" and "not"` }]))
    return undefined
  }
  if (kind === 'not') {
    const child = parseNode((value as { not: unknown }).not, [...path, 'not'], depth + 1, walk)
    return child && { kind: 'not', child }
  }
  const items = (value as Record<'and' | 'or', unknown[]>)[kind]
  const children = items.map((item, index) => parseNode(item, [...path, kind, index], depth + 1, walk))
  return children.every((child): child is FilterTree => child !== undefined) ? { kind, children } : undefined
}

/** Whether a tree holds a `performed` leaf. */
const treeHasPerformed = (tree: FilterTree): boolean =>
  tree.kind === 'performed' ||
  (tree.kind === 'not'
    ? treeHasPerformed(tree.child)
    : tree.kind === 'and' || tree.kind === 'or'
      ? tree.children.some(treeHasPerformed)
      : false)

/**
 * Parses a tree already read from JSON: every problem, each naming its node's path under `path`, and its regex
 * patterns for the request's budget.
 */
export function parseFilterTree(
  value: unknown,
  path: (string | number)[] = ['filters'],
): { tree?: FilterTree; issues: Issue[]; patterns: RegexPattern[] } {
  const walk: Walk = { issues: [], leaves: 0, patterns: [] }
  const tree = parseNode(value, path, 0, walk)
  if (walk.leaves > MAX_TREE_LEAVES) {
    walk.issues.push(
      ...named([
        {
          path,
          message: `a tree holds at most ${MAX_TREE_LEAVES} leaves (session filters, performed leaves and each filter inside one); this one holds ${walk.leaves}`,
        },
      ]),
    )
  }
  if (walk.issues.length || !tree) return { issues: walk.issues, patterns: walk.patterns }
  return { tree, issues: [], patterns: walk.patterns }
}

/** How a `performed` leaf is read where the tree is compiled. */
export type PerformedReading =
  /**
   * `session_id IN` those of the sessions of insights/performed-sessions.sql whose leaf mask passes, which
   * the statement names once in its WITH (`performedSessions`) and binds projectId, readFrom and readTo for.
   */
  | 'set'
  /** `countIf(...) > 0` over the rows of a statement that groups each session's events. */
  | 'grouped'

export interface CompiledTree {
  /** One condition over a session row: its `s_<column>` attributes and its session_id. */
  condition: Fragment
  /** The session attributes the condition reads. */
  sessionAttributes: SessionAttribute[]
  /**
   * With performed leaves read as a set: the one scan of them all (insights/performed-sessions.sql), which
   * the statement names PERFORMED_SESSIONS once, in its WITH, and the condition reads by that name; else null.
   */
  performedSessions: string | null
}

/** The name a statement gives a tree's performed sessions in its WITH, which the tree's leaves read. */
export const PERFORMED_SESSIONS = 'performed_sessions'

/** A performed leaf's condition over an event row (its own columns), its values bound under `prefix`. */
function performedCondition(performed: Performed, prefix: string): Fragment {
  const parts: Fragment[] = []
  if (performed.name !== undefined) parts.push({ sql: `name = {${prefix}_name:String}`, params: { [`${prefix}_name`]: performed.name } })
  parts.push(...performed.filters.map((filter, index) => compileFilter(filter, `${prefix}_f${index}`, 'events')))
  if (parts.length === 0) return { sql: '1', params: {} }
  return {
    sql: `(${parts.map((part) => part.sql).join(' AND ')})`,
    params: mergeParams(
      parts.map((part) => part.params),
      `performed leaf ${prefix}`,
    ),
  }
}

/**
 * The placeholders that insights/performed-sessions.sql reads from its statement: every statement that
 * places a tree read as `set` binds the window's read range (checked again when it compiles).
 */
const SET_CONTEXT: Params = { projectId: '', readFrom: '', readTo: '' }

/**
 * The distinct performed leaves read as a set: one scan of them all, each session with an event matching one
 * as a bit mask of the leaves it matches (bit n for `p<n>`; a tree holds at most 50 leaves, so they fit 64
 * bits), which the statement names once in its WITH.
 */
function performedScan(conditions: (Fragment & { index: number })[], params: Params): string {
  const bits = conditions.map(({ sql, index }) => `bitShiftLeft(toUInt64(${sql}), ${index})`).join(' + ')
  const anyLeaf = conditions.length > 1 ? `(${conditions.map(({ sql }) => sql).join(' OR ')})` : conditions[0].sql
  return compileInner(
    'insights/performed-sessions.sql',
    { ...SET_CONTEXT, ...params },
    { leaf_bits: sqlOnly(bits), performed: sqlOnly(anyLeaf) },
  ).sql
}

const performedKey = (performed: Performed): string => JSON.stringify(performed)

/**
 * The children of an `or` with its `is` session leaves on one attribute merged into one leaf of all their
 * values (the same sessions): one set lookup a session instead of one per leaf.
 */
function mergeIsLeaves(children: FilterTree[]): FilterTree[] {
  const merged = new Map<SessionAttribute, { kind: 'session'; filter: Filter }>()
  const out: FilterTree[] = []
  for (const child of children) {
    if (child.kind !== 'session' || child.filter.operator !== 'is' || child.filter.target.kind !== 'session') {
      out.push(child)
      continue
    }
    const attribute = child.filter.target.attribute
    const existing = merged.get(attribute)
    if (existing) {
      existing.filter = { ...existing.filter, values: [...existing.filter.values, ...child.filter.values] }
      continue
    }
    const leaf = { kind: 'session' as const, filter: child.filter }
    merged.set(attribute, leaf)
    out.push(leaf)
  }
  return out
}

/** Whether a node holds performed leaves only, under any `and`, `or` and `not`. */
const performedOnly = (node: FilterTree): boolean =>
  node.kind === 'performed' ||
  (node.kind === 'not' ? performedOnly(node.child) : (node.kind === 'and' || node.kind === 'or') && node.children.every(performedOnly))

/** A performed-only node's value for a session without a matching event: every leaf false. */
function valueWithoutEvents(node: FilterTree): boolean {
  switch (node.kind) {
    case 'and':
      return node.children.every(valueWithoutEvents)
    case 'or':
      return node.children.some(valueWithoutEvents)
    case 'not':
      return !valueWithoutEvents(node.child)
    case 'performed':
      return false
    case 'session':
      throw new Error('a performed-only node holds no session leaf')
    default:
      return assertNever(node)
  }
}

/**
 * An `and` or `or` with its performed-only children gathered into one node (the same condition): under a
 * set reading, one lookup in the performed sessions for all of them.
 */
function gatherPerformed(kind: 'and' | 'or', children: FilterTree[]): FilterTree[] {
  const performed = children.filter(performedOnly)
  if (performed.length < 2) return children
  return [...children.filter((child) => !performedOnly(child)), { kind, children: performed }]
}

/**
 * A tree as one condition over a session row. Session leaves are bound as `t<n>` in tree order; each
 * distinct `performed` leaf once, as `p<n>`, however often the tree repeats it. Read as a set, every
 * performed-only part of the tree is one lookup of `session_id` in the sessions of PERFORMED_SESSIONS whose
 * mask passes it (each leaf `bitTest(mask, n)`), or, when a session without a matching event passes it, not
 * in those whose mask fails it: each leaf adds its condition once and its test once per place of the tree,
 * and each place looks a session up once per performed-only part, not once per leaf.
 */
export function compileTree(tree: FilterTree, reading: PerformedReading): CompiledTree {
  const sessionLeaves: Fragment[] = []
  const attributes: SessionAttribute[] = []
  const performed = new Map<string, Performed>()
  const collect = (node: FilterTree): void => {
    if (node.kind === 'and' || node.kind === 'or') node.children.forEach(collect)
    else if (node.kind === 'not') collect(node.child)
    else if (node.kind === 'performed') performed.set(performedKey(node.performed), node.performed)
  }
  collect(tree)
  const conditions = [...performed.entries()].map(([key, leaf], index) => ({ key, index, ...performedCondition(leaf, `p${index}`) }))
  const byKey = new Map(conditions.map((condition) => [condition.key, condition]))
  const performedParams = mergeParams(
    conditions.map((condition) => condition.params),
    'the performed leaves',
  )
  const leafOf = (node: { performed: Performed }) => byKey.get(performedKey(node.performed)) as (typeof conditions)[number]
  const renderMask = (node: FilterTree): string => {
    switch (node.kind) {
      case 'and':
      case 'or':
        return node.children.length === 1
          ? renderMask(node.children[0])
          : `(${node.children.map(renderMask).join(node.kind === 'and' ? ' AND ' : ' OR ')})`
      case 'not':
        return `(NOT ${renderMask(node.child)})`
      case 'performed':
        return `bitTest(mask, ${leafOf(node).index})`
      case 'session':
        throw new Error('a performed-only node holds no session leaf')
      default:
        return assertNever(node)
    }
  }
  const lookup = (node: FilterTree): string =>
    valueWithoutEvents(node)
      ? `(NOT (session_id IN (SELECT session_id FROM ${PERFORMED_SESSIONS} WHERE NOT ${renderMask(node)})))`
      : `(session_id IN (SELECT session_id FROM ${PERFORMED_SESSIONS} WHERE ${renderMask(node)}))`
  const render = (node: FilterTree): string => {
    if (reading === 'set' && performedOnly(node)) return lookup(node)
    switch (node.kind) {
      case 'and':
      case 'or': {
        const merged = node.kind === 'or' ? mergeIsLeaves(node.children) : node.children
        const children = reading === 'set' ? gatherPerformed(node.kind, merged) : merged
        return children.length === 1 ? render(children[0]) : `(${children.map(render).join(node.kind === 'and' ? ' AND ' : ' OR ')})`
      }
      case 'not':
        return `(NOT ${render(node.child)})`
      case 'session': {
        if (node.filter.target.kind !== 'session') throw new Error('a session leaf holds a session-attribute filter')
        attributes.push(node.filter.target.attribute)
        const fragment = compileFilter(node.filter, `t${sessionLeaves.length}`)
        sessionLeaves.push(fragment)
        return fragment.sql
      }
      case 'performed':
        // Only counted ('grouped') here: read as a set, a performed leaf is a performed-only part (above).
        return `(countIf(${leafOf(node).sql}) > 0)`
      default:
        return assertNever(node)
    }
  }
  const sql = render(tree)
  return {
    condition: { sql, params: mergeParams([...sessionLeaves.map((leaf) => leaf.params), performedParams], 'the filter tree') },
    sessionAttributes: [...new Set(attributes)],
    performedSessions: reading === 'set' && conditions.length > 0 ? performedScan(conditions, performedParams) : null,
  }
}

/**
 * A tree as the sorted filters of an insights question: it only restricts sessions (its condition, with its
 * performed leaves as sets), and every page view of a kept session counts.
 */
export function sortTree(tree: FilterTree): SortedFilters {
  const { condition, sessionAttributes, performedSessions } = compileTree(tree, 'set')
  return {
    performedSessions,
    restrictionReadsEvents: treeHasPerformed(tree),
    sessionRestriction: condition.sql,
    eventSelection: null,
    viewCondition: null,
    viewConditionOnPage: true,
    nameFiltered: false,
    sessionAttributes,
    params: condition.params,
  }
}

/**
 * Reads the `filters` parameter of a question that takes trees (JSON text): an array keeps the flat filters'
 * meaning, an object is a tree. Every problem is listed, and the regex patterns are given for the request's
 * budget, which the caller applies over all of the request's patterns.
 */
export function readFiltersOrTree(text: string | undefined): {
  filters: Filter[]
  tree?: FilterTree
  issues: Issue[]
  patterns: RegexPattern[]
} {
  if (text === undefined) return { filters: [], issues: [], patterns: [] }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return readFilters(text)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return readFilters(text)
  const { tree, issues, patterns } = parseFilterTree(parsed)
  return { filters: [], ...(tree ? { tree } : {}), issues, patterns }
}

/** The `filters` parameter of a question whose only regex patterns they are, flat or a tree. */
export function parseFiltersOrTree(text: string | undefined): { filters: Filter[]; tree?: FilterTree; issues: Issue[] } {
  const { patterns, issues, ...read } = readFiltersOrTree(text)
  return { ...read, issues: [...issues, ...regexIssues([{ patterns, runs: 1 }])] }
}
