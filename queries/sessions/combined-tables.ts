// The one declaration of the combined tables: what the compaction builds for each settled day, and what reads
// it. The compaction's statements (server/admin/compaction-sql.ts, compact.ts) and the definition hash
// (definition.ts) iterate over this list; a new fast path is an entry here, its build template and its
// table in a migration (docs/design/sessions.md, "Adding a combined table").
import { sqlOnly, type Fragment } from '../core/compiled'
import { combinedFields, type SessionFields } from './session-fields'

/**
 * What a build's fragments are made from: the registry's session fields and breakdowns. The definition hash
 * covers these inputs and the build templates' text, so a fragment made only from them needs nothing more to
 * be versioned.
 */
export interface BuildInputs {
  fields: SessionFields
  /** Every breakdown as (name, prefix, value) over a combined session's `s_` columns (definition.ts). */
  breakdowns: Fragment
}

export interface CombinedTable {
  /** The table, and `<table>_stage` beside it, as the migration creates them. */
  table: string
  /** The statement that builds a day of the table into its staging table, and the fragments it fills. */
  build: { template: string; fragments?: (inputs: BuildInputs) => Record<string, Fragment> }
  /** Which questions read it. */
  serves: string
  /** The templates that read it for those questions. */
  relations: readonly string[]
}

/** The combined tables in the order a day builds them: each rollup reads the staged rows built before it. */
export const COMBINED_TABLES = [
  {
    table: 'sessions_settled',
    build: {
      template: 'admin/compact-build.sql',
      fragments: ({ fields }) => ({ attributes: sqlOnly(combinedFields(Object.keys(fields), '    ', fields)) }),
    },
    serves: 'every session question over settled days that no rollup answers (a filter, or a window not on whole hours)',
    relations: ['sessions/settled-sessions.sql'],
  },
  {
    table: 'page_views_settled',
    build: { template: 'admin/compact-views-build.sql' },
    serves: '/pages over a window on quarter hours when a filter restricts the sessions or the window is not on whole hours',
    relations: ['sessions/stored-page-views.sql'],
  },
  {
    table: 'page_rollup',
    build: { template: 'admin/compact-rollup-build.sql' },
    serves: '/pages with no filter restricting the sessions, over a window on whole hours',
    relations: ['sessions/stored-page-views.sql'],
  },
  {
    table: 'session_rollup',
    build: { template: 'admin/compact-session-rollup-build.sql', fragments: ({ breakdowns }) => ({ breakdowns }) },
    serves: 'breakdowns (by the hour) and entry and exit pages (by the day) with no filter, over a window on whole hours',
    relations: ['sessions/session-rollup-rows.sql'],
  },
] as const satisfies readonly CombinedTable[]

export type CombinedTableName = (typeof COMBINED_TABLES)[number]['table']

/** The declared entry of `name`. */
export function combinedTable(name: CombinedTableName): CombinedTable {
  const entry = COMBINED_TABLES.find((candidate) => candidate.table === name)
  if (!entry) throw new Error(`No combined table ${name}`)
  return entry
}
