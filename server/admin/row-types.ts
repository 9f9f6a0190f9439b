// The rows of every SQL template that lists its columns (`-- @returns`, queries/core/returns.ts) as TypeScript
// types: `npm run rows:types` rewrites queries/core/rows.generated.ts, which test/unit/row-types.test.ts keeps
// current; test/integration/row-columns.test.ts checks the lists against the engine.
import fs from 'node:fs'
import path from 'node:path'
import { parseColumnType, type ColumnType } from '../../queries/core/returns'
import { isRouteTemplate, listSqlFiles, loadTemplate } from '../../queries/core/templates'

export const ROWS_FILE = path.join(__dirname, '..', '..', 'queries', 'core', 'rows.generated.ts')

/**
 * How JSON gives 64-bit and wider integers. TRICKY: the serving runner pins
 * `output_format_json_quote_64bit_integers` to 0 (queries/run/runner.ts), so a route's rows have numbers; the
 * admin connection leaves the engine's default, numbers embedded and strings from a server.
 */
export type WideIntegers = 'number' | 'number | string'

const quoted = (label: string) => `'${label.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

/** The TypeScript type of a column's value as the engine's JSON (JSONEachRow) writes it. */
export function jsonTypeOf(type: ColumnType, wide: WideIntegers): string {
  switch (type.kind) {
    case 'scalar':
      if (/^U?Int(64|128|256)$/.test(type.name)) return wide
      if (/^(U?Int\d+|Float\d+|Decimal)/.test(type.name)) return 'number'
      return type.name === 'Bool' ? 'boolean' : 'string'
    case 'enum':
      return type.labels.map(quoted).join(' | ')
    case 'nullable':
      return `${jsonTypeOf(type.inner, wide)} | null`
    case 'low_cardinality':
      return jsonTypeOf(type.inner, wide)
    case 'array':
      return `ReadonlyArray<${jsonTypeOf(type.inner, wide)}>`
    case 'map':
      return `Readonly<Record<string, ${jsonTypeOf(type.value, wide)}>>`
    case 'tuple':
      // Named tuples are written as objects (output_format_json_named_tuples_as_objects, on by default), others as arrays.
      return type.elements.every((element) => element.name)
        ? `{ ${type.elements.map((element) => `readonly ${element.name}: ${jsonTypeOf(element.type, wide)}`).join('; ')} }`
        : `readonly [${type.elements.map((element) => jsonTypeOf(element.type, wide)).join(', ')}]`
  }
}

const HEADER = `// Written by \`npm run rows:types\` (server/admin/row-types.ts) from the column lists of the templates'
// \`-- @returns\` headers: change the SQL, then run it again; test/unit/row-types.test.ts fails while this file
// is stale, and test/integration/row-columns.test.ts checks the lists against what the engine describes.
// A row is typed as the engine's JSON writes it: Int64 and wider as numbers in a route's rows (the serving
// runner pins output_format_json_quote_64bit_integers to 0), as numbers or strings in admin rows; dates and
// times as text; LowCardinality as its type; Nullable adding null; Array as an array; Map as an object. The
// export's CSV statements are written as TabSeparatedRaw and read by their own parser: their entries name the columns.
`

/** The text of queries/core/rows.generated.ts: a type for each template under sql/ that lists its columns. */
export function generateRowTypes(): string {
  // A template whose row holds an earlier one's five or more fields in a run (a rollup and its twin, or that row
  // with a member column) names that one's type, with its own other fields beside it.
  const written: { file: string; fields: string[] }[] = []
  const containing = (fields: string[]) =>
    written.find(
      (earlier) =>
        earlier.fields.length >= 5 && fields.some((_, start) => earlier.fields.every((field, index) => fields[start + index] === field)),
    )
  const entries = listSqlFiles()
    .filter((file) => !file.startsWith('migrations/'))
    .flatMap((file) => {
      const template = loadTemplate(file)
      const returns = template.returns
      if (returns?.kind !== 'columns') return []
      const wide: WideIntegers = isRouteTemplate(file) ? 'number' : 'number | string'
      const fields = returns.columns.map((column) => {
        const type = parseColumnType(column.type)
        if (!type) throw new Error(`sql/${file}: column ${column.name} has an unknown type ${column.type}`)
        return `    readonly ${column.name}: ${jsonTypeOf(type, wide)}`
      })
      if (returns.rest) fields.push(`    /** The columns the @${returns.rest} marker adds. */`, '    readonly [column: string]: unknown')
      const earlier = containing(fields)
      if (earlier) {
        const own = fields.filter((field) => !earlier.fields.includes(field))
        const type = own.length ? `Rows['${earlier.file}'] & {\n${own.join('\n')}\n  }` : `Rows['${earlier.file}']`
        return [`  /** ${template.name}: the row of ${earlier.file}${own.length ? ' and its own' : ''} */`, `  '${file}': ${type}`]
      }
      written.push({ file, fields })
      return [`  /** ${template.name} */`, `  '${file}': {`, ...fields, '  }']
    })
  return [
    HEADER,
    '/** The row of each template that lists its columns, by its file under sql/. */',
    'export interface Rows {',
    ...entries,
    '}',
    '',
  ].join('\n')
}

if (require.main === module) {
  fs.writeFileSync(ROWS_FILE, generateRowTypes())
  console.log(`wrote ${path.relative(process.cwd(), ROWS_FILE)}`)
}
