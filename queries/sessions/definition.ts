// The version of the combined tables' definition: a hash of what builds them, the statements of the four
// builds (their SQL without comments), the session fields a combined session carries (the registry's one
// list, core/session-fields.ts) and the breakdowns each settled session is rolled up by. A compaction
// records it with each day; a reader counts a day settled only under its own version, so a changed build or
// an added breakdown reads the day's partial rows, exactly, until the day is compacted again, and never an
// older build's rows (which would hold nothing for a breakdown added since).
import crypto from 'node:crypto'
import { sqlOnly, type Fragment } from '../core/compiled'
import { DIMENSIONS, SESSION_FIELDS, breakdownSql, type Dimension } from '../core/registry'
import { combinedFieldColumns, partialRowSelect, type SessionFields } from '../core/session-fields'
import { loadTemplate } from '../core/templates'

/** The statements that build a compacted day of the combined tables. */
export const BUILD_TEMPLATES = [
  'admin/compact-build.sql',
  'admin/compact-views-build.sql',
  'admin/compact-rollup-build.sql',
  'admin/compact-session-rollup-build.sql',
] as const

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

const statementText = (sql: string) =>
  sql
    .replace(/--.*$/gm, '')
    .replace(/\s+/g, ' ')
    .trim()

/**
 * The version of a definition: the first 64 bits of the SHA-256 of its build statements, session fields and
 * breakdowns, as decimal text.
 */
export function definitionOf(breakdowns: Fragment, fields: SessionFields = SESSION_FIELDS): string {
  const hash = crypto.createHash('sha256')
  for (const file of BUILD_TEMPLATES) hash.update(`${file}\n${statementText(loadTemplate(file).text)}\n`)
  hash.update(`${combinedFieldColumns(fields)}\n${partialRowSelect(fields)}\n`)
  hash.update(breakdowns.sql)
  return hash.digest().readBigUInt64BE(0).toString()
}

/** This gateway's definition of the combined tables. */
export const COMPACTION_DEFINITION = definitionOf(BREAKDOWNS)
