// The version of the combined tables' definition: a hash of what builds them, the build statement of every
// entry of the declaration (combined-tables.ts, in its order; their SQL without comments), the session fields
// a combined session carries (the registry's one list, sessions/session-fields.ts) and the breakdowns each
// settled session is rolled up by: the inputs every build's fragments are made from. A compaction records it
// with each day; a reader counts a day settled only under its own version, so a changed build or an added
// breakdown reads the day's partial rows, exactly, until the day is compacted again, and never an older
// build's rows (which would hold nothing for a breakdown added since).
import crypto from 'node:crypto'
import { sqlOnly, type Fragment } from '../core/compiled'
import { DIMENSIONS, SESSION_FIELDS, breakdownSql, type Dimension } from '../core/registry'
import { combinedFieldColumns, partialRowSelect, type SessionFields } from './session-fields'
import { loadTemplate } from '../core/templates'
import { COMBINED_TABLES, type BuildInputs, type CombinedTable } from './combined-tables'

/** Each breakdown of `dimensions` as (name, prefix column or '', column) over sessions_settled's `s_` columns. */
export function breakdownTuples(dimensions: readonly Dimension[]): Fragment {
  return sqlOnly(
    dimensions
      .map(breakdownSql)
      .map(({ name, prefix, value }) => `(${name}, ${prefix}, ${value})`)
      .join(', '),
  )
}

/** The registry's breakdowns, as every compaction rolls sessions up by them. */
export const BREAKDOWNS = breakdownTuples(Object.keys(DIMENSIONS) as Dimension[])

const statementText = (sql: string) => sql.replace(/--.*$/gm, '').replace(/\s+/g, ' ').trim()

/** The inputs of this gateway's builds: the registry's session fields and breakdowns. */
export const BUILD_INPUTS: BuildInputs = { fields: SESSION_FIELDS, breakdowns: BREAKDOWNS }

/**
 * The version of the definition of `tables` built from `inputs`: the first 64 bits of the SHA-256 of each
 * table's build statement, in order, then of the session fields and the breakdowns, as decimal text.
 */
export function versionOf(tables: readonly CombinedTable[], { fields, breakdowns }: BuildInputs): string {
  const hash = crypto.createHash('sha256')
  for (const { build } of tables) hash.update(`${build.template}\n${statementText(loadTemplate(build.template).text)}\n`)
  hash.update(`${combinedFieldColumns(fields)}\n${partialRowSelect(fields)}\n`)
  hash.update(breakdowns.sql)
  return hash.digest().readBigUInt64BE(0).toString()
}

/** The version of the declared combined tables built by `breakdowns` and `fields`. */
export const definitionOf = (breakdowns: Fragment, fields: SessionFields = SESSION_FIELDS): string =>
  versionOf(COMBINED_TABLES, { fields, breakdowns })

/** This gateway's definition of the combined tables. */
export const COMPACTION_DEFINITION = versionOf(COMBINED_TABLES, BUILD_INPUTS)
