// The statements whose rows test/integration/row-columns.test.ts compares with their template's `@returns`:
// every route's example requests compiled as the startup check and the SQL catalogue compile them (on both
// engines, with no settled day and with settled days, each route alone and the routes that join asked
// together), and the admin, compaction, import and control statements that return rows.
import { compileInner, compileTemplate, type CompiledQuery } from '../../queries/core/compiled'
import type { Returns } from '../../queries/core/returns'
import { toClickHouseTime, type Scope, type SettledRow } from '../../queries/core/pipeline'
import { compileDataVersion } from '../../queries/run/data-version'
import { joinedStatementsOf, statementsOf } from '../../queries/run/statements'
import { COMBINED_TABLES } from '../../queries/sessions/combined-tables'
import { CompactionSql, type DayJob, type RunConstants } from '../../server/admin/compaction-sql'
import { ROUTES, resourceOf } from '../../server/routes/routes'
import { EXAMPLE_QUERIES, examplesFor } from '../../server/routes/examples'

/** A statement and where it comes from, for the test's messages. */
export interface LabelledStatement {
  label: string
  compiled: CompiledQuery
}

const SCOPE: Scope = {
  project: { id: 'demo', name: 'demo', timezone: 'Europe/Berlin' },
  now: new Date('2024-04-15T10:00:00.000Z'),
  sessionLookbackMs: 86_400_000,
}

/** Two settled days inside the examples' windows: the statements then read the combined tables (rollups among them). */
const SETTLED: readonly SettledRow[] = [
  { day: '2024-04-10', compaction: '1712707200000001' },
  { day: '2024-04-11', compaction: '1712793600000001' },
]

/** Every statement of every route's example requests, and of the routes that join asked each example at once. */
export function routeStatements(): LabelledStatement[] {
  const alone = ROUTES.flatMap((route) =>
    examplesFor(route).flatMap((query) =>
      [true, false].flatMap((streams) =>
        [undefined, SETTLED].flatMap((settled) =>
          statementsOf(resourceOf(route), { ...query }, SCOPE, streams, settled).map(({ label, compiled }) => ({
            label: `${route.path}?${new URLSearchParams(query)} (${streams ? 'embedded' : 'server'}, ${settled ? 'settled days' : 'none settled'}): ${label}`,
            compiled,
          })),
        ),
      ),
    ),
  )
  const joined = EXAMPLE_QUERIES.flatMap((query) =>
    joinedStatementsOf(ROUTES.filter((route) => examplesFor(route).includes(query)).map(resourceOf), { ...query }, SCOPE).map(
      ({ label, compiled }) => ({
        label: `?${new URLSearchParams(query)}: ${label}`,
        compiled,
      }),
    ),
  )
  return [...alone, ...joined]
}

const RUN: RunConstants = { lastDay: '2024-04-13', lookbackSeconds: 86_400, keepMs: 3_600_000, definition: '12345678901234567' }
const JOB: DayJob = {
  day: '2024-04-10',
  compaction: '1712707200000001',
  readFrom: toClickHouseTime(new Date('2024-04-09T00:00:00Z')),
  readTo: toClickHouseTime(new Date('2024-04-12T00:00:00Z')),
}

/** The import staging table `adminStatements` reads: made by admin/import-stage.sql before they run. */
export const IMPORT_STAGE = 'import_stage_row_columns'
/** The profiles import's staging table `adminStatements` reads: made by admin/import-people-stage.sql before they run. */
export const PEOPLE_STAGE = 'import_stage_row_columns_people'

/** The compaction's, the importer's, the migrations' and the control statements that return rows, on one node. */
export function adminStatements(): LabelledStatement[] {
  const compaction = new CompactionSql()
  const named = (label: string, compiled: CompiledQuery) => ({ label, compiled })
  const importParams = { stage: IMPORT_STAGE, projectId: 'demo' }
  return [
    named('compaction: stale days', compaction.staleDays(RUN)),
    named('compaction: partial rows of a day', compaction.count(JOB)),
    ...COMBINED_TABLES.flatMap((entry) => [
      named(`compaction: superseded of ${entry.table}`, compaction.superseded(entry, RUN)),
      named(`compaction: stage check of ${entry.table}`, compaction.stageCheck(entry, JOB)),
      named(`compaction: mutations of ${entry.table}`, compaction.mutating(entry)),
      named(`compaction: masked months of ${entry.table}`, compaction.masked(entry, 0.2)),
    ]),
    named('compaction: lease state', compileTemplate('admin/compact-lease-state.sql', { leaseSeconds: 60 })),
    named('compaction: lease winner', compileTemplate('admin/compact-lease-winner.sql', { generation: 3 })),
    named('import: staged rows', compileTemplate('admin/compact-stage-rows.sql', { stage: IMPORT_STAGE })),
    named('import: leftover staging tables', compileTemplate('admin/import-leftovers.sql', {})),
    named(
      'import: counts',
      compileTemplate('admin/import-count.sql', importParams, { new_events: compileInner('admin/import-new-events.sql', importParams) }),
    ),
    named(
      'import: counts of profiles',
      compileTemplate(
        'admin/import-people-count.sql',
        { stage: PEOPLE_STAGE, projectId: 'demo' },
        { new_people: compileInner('admin/import-profiles-new.sql', { stage: PEOPLE_STAGE, projectId: 'demo' }) },
      ),
    ),
    named('export: profiles', compileTemplate('admin/export-profiles.sql', { projectId: 'demo', afterId: '', rows: 10 })),
    named('export: groups', compileTemplate('admin/export-groups.sql', { projectId: 'demo', afterId: '', rows: 10 })),
    named('migrations: applied', compileTemplate('admin/migrations-applied.sql', {})),
    named('migrations: tracked', compileTemplate('admin/migrations-tracked.sql', {})),
    named('data version', compileDataVersion(undefined)),
    named('control: every client', compileTemplate('control/api-clients.sql', {})),
    named('control: a client', compileTemplate('control/client-find.sql', { id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001' })),
    named("control: a project's clients", compileTemplate('control/client-list.sql', { all: false, projectId: 'demo' })),
    named('control: every project', compileTemplate('control/projects.sql', {})),
    named('control: a project', compileTemplate('control/project-find.sql', { id: 'demo' })),
    named('control: projects by id', compileTemplate('control/project-list.sql', {})),
  ]
}

/** A column as `DESCRIBE` gives it. */
export interface DescribedColumn {
  name: string
  type: string
}

/**
 * How the columns the engine gives differ from those a template declares, one line each (none when they
 * agree): name and type position by position, then the missing and the extra ones. Columns after those
 * listed are the `rest` marker's, when the list ends in one.
 */
export function columnDifferences(declared: Returns | undefined, described: readonly DescribedColumn[]): string[] {
  if (declared?.kind !== 'columns') return [`its template declares no columns ("-- @returns ${declared?.kind ?? 'missing'}")`]
  const { columns, rest } = declared
  const text = (column: DescribedColumn) => `${column.name} ${column.type}`
  const differences = columns
    .slice(0, described.length)
    .flatMap((column, index) =>
      text(column) === text(described[index])
        ? []
        : [`column ${index + 1} is declared ${text(column)}, the engine gives ${text(described[index])}`],
    )
  differences.push(...columns.slice(described.length).map((column) => `declared column ${text(column)} is missing`))
  if (!rest) differences.push(...described.slice(columns.length).map((column) => `column ${text(column)} is not declared`))
  return differences
}
