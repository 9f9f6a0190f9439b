// Everything the session fields of the registry (SESSION_FIELDS) become in SQL, generated from that one
// list: the partial row a block of events writes (the view's select, and the import's rebuild of it), the
// columns of `sessions` and of a combined session (`sessions_settled`), and how a session's partial rows
// are combined (the compaction's build, and the questions that regroup partial rows).
// Each takes the list as an argument (the registry's by default), so that a test can add a field and see
// every one of them carry it.
import { SESSION_FIELDS, type SessionFieldSpec } from '../core/registry'

/** A list of session fields, as the registry's SESSION_FIELDS. */
export type SessionFields = Readonly<Record<string, SessionFieldSpec>>

const eventColumn = (fields: SessionFields, field: string) => fields[field].event ?? field

/** Lines joined as a column list: each on its own line at `indent`, separated by commas. */
const list = (lines: string[], indent: string) => lines.map((line) => `${indent}${line}`).join(',\n')

/**
 * The partial row that one block of events writes per session (`sessions_mv`, and the import's rebuild of a
 * session's rows), over events with `event_key` (created_at above the id's 128 bits), as (column,
 * expression) pairs: its start, end and counts, the visitor and device of its first event, and every
 * session field.
 */
function partialRow(fields: SessionFields): [string, string][] {
  return [
    ['project_id', 'project_id'],
    ['session_id', 'session_id'],
    ['started_at', 'min(created_at)'],
    ['first_event_key', 'min(event_key)'],
    // The block's last page view (0 without one): an exit field is that view's value.
    ['last_view_key', "maxIf(event_key, name = 'screen_view')"],
    ['ended_at', 'max(created_at)'],
    ['screen_views', "toUInt32(countIf(name = 'screen_view'))"],
    ['event_count', 'toUInt32(count())'],
    ['revenue', 'sum(revenue)'],
    ['profile_id', 'argMin(profile_id, event_key)'],
    ['device_id', 'argMin(device_id, event_key)'],
    ...Object.keys(fields).map((field): [string, string] => [
      field,
      fields[field].from === 'last_view'
        ? `argMaxIf(${eventColumn(fields, field)}, event_key, name = 'screen_view')`
        : `argMin(${eventColumn(fields, field)}, event_key)`,
    ]),
  ]
}

/** The select list of the partial row (see `partialRow`), one column a line. */
export function partialRowSelect(fields: SessionFields = SESSION_FIELDS, indent = '  '): string {
  return list(
    partialRow(fields).map(([column, expression]) => (column === expression ? column : `${expression} AS ${column}`)),
    indent,
  )
}

/** The names of the columns `partialRowSelect` gives, in its order: an insert names them, whatever order a table has. */
export function partialRowColumns(fields: SessionFields = SESSION_FIELDS): string {
  return partialRow(fields)
    .map(([column]) => column)
    .join(', ')
}

/** The session fields' columns of `sessions` (its partial rows), as a table's column definitions. */
export function partialFieldColumns(fields: SessionFields = SESSION_FIELDS, indent = '  '): string {
  return list(
    Object.entries(fields).map(([field, { type }]) => `${field} ${type}`),
    indent,
  )
}

/** The session fields' columns of a combined session (`sessions_settled`): `s_<field>`, as column definitions. */
export function combinedFieldColumns(fields: SessionFields = SESSION_FIELDS, indent = '  '): string {
  return list(
    Object.entries(fields).map(([field, { type }]) => `s_${field} ${type}`),
    indent,
  )
}

/**
 * The fields `names` combined over one session's partial rows, in a GROUP BY session over `sessions`, as
 * `s_<field>`: an attribute is the value of the session's earliest first event (`argMin(...,
 * first_event_key)`), an exit that of its latest page view (`argMax(..., last_view_key)`). Each line starts
 * with a comma, to follow the columns before it.
 */
export function combinedFields(
  names: readonly string[] = Object.keys(SESSION_FIELDS),
  indent = '  ',
  fields: SessionFields = SESSION_FIELDS,
): string {
  const combine = (field: string) =>
    fields[field].from === 'last_view' ? `argMax(${field}, last_view_key)` : `argMin(${field}, first_event_key)`
  return [...new Set(names)].map((field) => `,\n${indent}${combine(field)} AS s_${field}`).join('')
}

/** Each attribute as its first event's value over `events` rows grouped by session (ties by the id text), as `s_<field>`. */
export function firstEventFields(names: readonly string[], fields: SessionFields = SESSION_FIELDS, indent = '  '): string {
  return [...new Set(names)]
    .map((field) => `,\n${indent}argMin(${eventColumn(fields, field)}, (created_at, toString(id))) AS s_${field}`)
    .join('')
}
