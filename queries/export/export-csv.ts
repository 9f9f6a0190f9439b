// CSV for `/export/events`, written by the engine (quoted and formula-neutralised in SQL): the whole export
// as one statement of records, or, where profiles follow each chunk, a statement per keyset chunk whose
// single row carries the chunk's records and the keyset of its last row.
import { compileInner, compileTemplate, sqlOnly, type CompiledQuery, type Fragment } from '../core/compiled'
import { exportColumns, compileRows, type ExportQuery, type Keyset, type PlannedExport } from './export-events'

/**
 * How a column becomes a CSV cell: client text (quoted when needed, formula-neutralised), text the
 * engine formats itself (a UUID, an ISO date: nothing to quote), a number, or JSON text.
 */
type CellKind = 'text' | 'formatted' | 'nullableFormatted' | 'number' | 'nullableNumber' | 'json' | 'profile'

const CELL_KINDS: Record<string, CellKind> = {
  id: 'formatted',
  projectId: 'formatted',
  createdAt: 'formatted',
  importedAt: 'nullableFormatted',
  duration: 'number',
  latitude: 'nullableNumber',
  longitude: 'nullableNumber',
  revenue: 'number',
  properties: 'json',
  groups: 'json',
  profile: 'profile',
}

// RE2 patterns as SQL literals: a cell that starts like a formula (OWASP), and one that needs care.
const FORMULA_START = `'^[=+\\-@\\t\\r]'`
const NEEDS_CARE = `'^[=+\\-@\\t\\r]|[",\\r\\n]'`

/**
 * A text cell as it is, or, when it starts like a formula or holds a special character, in double quotes
 * (" doubled) with a leading ' when it starts like a formula (OWASP's rule, quotes included).
 */
function textCellSql(text: string): string {
  return `if(match(${text}, ${NEEDS_CARE}), concat('"', if(match(${text}, ${FORMULA_START}), '\\'', ''), replaceAll(${text}, '"', '""'), '"'), ${text})`
}

/** One cell of export.events-csv; `column` is a response name from the export's closed column list. */
function cellSql(column: string): string {
  const kind = CELL_KINDS[column] ?? 'text'
  switch (kind) {
    case 'text':
      return textCellSql(column)
    case 'formatted':
      return column
    case 'nullableFormatted':
      return `ifNull(${column}, '')`
    case 'number':
      return `toString(${column})`
    case 'nullableNumber':
      return `ifNull(toString(${column}), '')`
    // TRICKY: toJSONString escapes every '/' as '\/' (JSON.stringify, the JSON export's writer, does
    // not); each '/' is escaped, so dropping the backslash before each gives JSON.stringify's text.
    case 'json':
      return textCellSql(`replaceAll(toJSONString(${column}), '\\\\/', '/')`)
    case 'profile':
      return textCellSql('profileJson')
  }
}

/** The header line, the same names and order as the JSON export's fields. */
export function csvHeader(query: ExportQuery): string {
  return `${exportColumns(query).join(',')}\r\n`
}

/** A record's cells, comma-separated, in the export's column order. */
const cellsOf = (query: ExportQuery): Fragment => ({ sql: exportColumns(query).map(cellSql).join(",\n    ',',\n    "), params: {} })

/** A compiled statement to nest inside another, without its header comments. */
const nested = (compiled: CompiledQuery): Fragment => ({ sql: compiled.sql.replace(/^--.*\n/gm, ''), params: { ...compiled.params } })

/** One keyset chunk of `rows` rows after `after`, as CSV text written by the engine. */
export function compileCsvChunk(query: PlannedExport, slice: { after?: Keyset; rows: number }): CompiledQuery {
  const rowsFragment = nested(
    compileRows(query, { ...slice, extraColumns: ['created_at AS createdAtKey', 'toUInt128(events.id) AS idKey'] }),
  )
  // The profile look-up reads the chunk's rows statement again; the chunk binds its params once.
  const profiles = query.includes.includes('profile')
    ? compileInner('export/profile-cells.sql', rowsFragment.params, {
        profiles: compileInner('export/profiles.sql', rowsFragment.params, {
          ids: sqlOnly(`(SELECT profileId FROM (${rowsFragment.sql}))`),
        }),
      })
    : undefined
  const compiled = compileTemplate(
    'export/events-csv.sql',
    {},
    {
      rows: rowsFragment,
      cells: cellsOf(query),
      profiles: profiles
        ? { sql: `\nLEFT JOIN (${profiles.sql}) AS profile ON profile.profileKey = chunk.profileId`, params: profiles.params }
        : { sql: '', params: {} },
    },
  )
  return { ...compiled, format: 'TabSeparatedRaw' }
}

/** The first `rows` rows of the export as CSV records, one a row, as the engine wrote them (TabSeparatedRaw, see the template). */
export function compileCsvLines(query: PlannedExport, rows: number): CompiledQuery {
  const compiled = compileTemplate('export/events-csv-lines.sql', {}, { rows: nested(compileRows(query, { rows })), cells: cellsOf(query) })
  return { ...compiled, format: 'TabSeparatedRaw' }
}

/** A chunk written by export.events-csv: `rows \t lastAtMs \t lastId \t text \n`, the text raw. */
export function parseCsvChunk(output: string): { rows: number; lastAtMs: number; lastId: string; text: string } {
  const tabs: number[] = []
  for (let at = -1; tabs.length < 3; ) {
    at = output.indexOf('\t', at + 1)
    if (at === -1) throw new Error('A CSV chunk without its three leading fields')
    tabs.push(at)
  }
  const end = output.endsWith('\n') ? output.length - 1 : output.length
  return {
    rows: Number(output.slice(0, tabs[0])),
    lastAtMs: Number(output.slice(tabs[0] + 1, tabs[1])),
    lastId: output.slice(tabs[1] + 1, tabs[2]),
    text: output.slice(tabs[2] + 1, end),
  }
}
