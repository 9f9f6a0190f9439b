// `import --profiles FILE` / `import --groups FILE` and `export --profiles` / `export --groups`: NDJSON in the
// columns of the tables (snake_case; the camelCase the API answers groups' and members' fields in is read too),
// the same keys both ways, so a file written by export reads back as it is. An import checks every line,
// writes every good line or none (staged, then moved by one insert), and writes only the versions the
// project does not hold yet: a rerun writes nothing again.
import crypto from 'node:crypto'
import fs from 'node:fs'
import { compileInner, compileTemplate, type Params } from '../../queries/core/compiled'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { compileSchema, schemaIssues } from '../../queries/core/validate'
import type { Engine } from '../engine'
import { ControlError, findProject } from './control'
import { toSnakeKeys } from './event-keys'
import { type LineProblem, MAX_LINE_BYTES, MAX_LISTED_BAD_LINES } from './importer'
import { readLines } from './line-reader'

export type PeopleKind = 'profiles' | 'groups'

const text = { type: 'string' }
const instant = { type: 'string', format: 'date-time' }
const textMap = { type: 'object', additionalProperties: { type: 'string' } }
const texts = { type: 'array', items: { type: 'string' } }

/** Each table's columns as a line carries them, what a line must hold, and its export and new-versions templates. */
const KINDS = {
  profiles: {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'created_at'],
      properties: {
        id: { type: 'string', minLength: 1 },
        project_id: text,
        first_name: text,
        last_name: text,
        email: text,
        avatar: text,
        properties: textMap,
        is_external: { type: 'boolean' },
        groups: texts,
        created_at: instant,
        last_seen_at: instant,
      },
    },
    /**
     * Every column (the staging table has no defaults): dates as the engine reads them, a profile never seen
     * again last seen when it was created, identified (is_external) unless the line says otherwise.
     */
    row: (line: Record<string, unknown>) => ({
      ...line,
      is_external: line.is_external ?? true,
      created_at: toClickHouseTime(new Date(String(line.created_at))),
      last_seen_at: toClickHouseTime(new Date(String(line.last_seen_at ?? line.created_at))),
    }),
    newRows: 'admin/import-profiles-new.sql',
    exported: 'admin/export-profiles.sql',
  },
  groups: {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'type', 'created_at'],
      properties: {
        id: { type: 'string', minLength: 1 },
        project_id: text,
        type: { type: 'string', minLength: 1 },
        name: text,
        properties: textMap,
        created_at: instant,
        version: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        deleted: { enum: [0, 1] },
      },
    },
    /** Dates as the engine reads them; without a version, the creation time in milliseconds (as OpenPanel writes it). */
    row: (line: Record<string, unknown>) => ({
      ...line,
      created_at: toClickHouseTime(new Date(String(line.created_at))),
      version: line.version ?? new Date(String(line.created_at)).getTime(),
    }),
    newRows: 'admin/import-groups-new.sql',
    exported: 'admin/export-groups.sql',
  },
} as const

const validators = {
  profiles: compileSchema(KINDS.profiles.schema, { coerce: false, keyNoun: 'field' }),
  groups: compileSchema(KINDS.groups.schema, { coerce: false, keyNoun: 'field' }),
}

export interface PeopleImportOptions {
  kind: PeopleKind
  projectId: string
  file: string
  skipBad: boolean
  /** The project the file's `project_id`s name when it is another's export. */
  fromProject?: string
}

export interface PeopleImportReport {
  /** Versions written by this run. */
  imported: number
  /** Good lines not written: the project holds the same version, or it came earlier in the file. */
  duplicates: number
  skipped: number
  badLines: number
  bad: LineProblem[]
}

/** One line's row, or its problems. */
export function parsePeopleLine(
  kind: PeopleKind,
  lineText: string,
  projectId: string,
  fromProject?: string,
): { row?: Record<string, unknown>; problems: string[] } {
  let value: unknown
  try {
    value = JSON.parse(lineText)
  } catch (error) {
    return { problems: [`not JSON: ${(error as Error).message}`] }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problems: ['a line must be a JSON object'] }
  const keyed = toSnakeKeys(value as Record<string, unknown>, Object.keys(KINDS[kind].schema.properties))
  if (keyed.problems.length) return { problems: keyed.problems }
  const problems = schemaIssues(validators[kind], keyed.event).map((issue) => issue.message)
  const line = keyed.event
  const expected = fromProject ?? projectId
  if (problems.length === 0 && line.project_id !== undefined && line.project_id !== expected)
    problems.push(`project_id "${String(line.project_id)}" differs from --${fromProject ? 'from-project' : 'project'} "${expected}"`)
  if (problems.length) return { problems }
  return { row: { ...KINDS[kind].row(line), project_id: projectId }, problems: [] }
}

const BATCH_ROWS = 10_000

export async function importPeople(engine: Engine, options: PeopleImportOptions): Promise<PeopleImportReport> {
  if (!(await findProject(engine, options.projectId))) throw new ControlError(`no project "${options.projectId}"`)
  if (!fs.existsSync(options.file)) throw new ControlError(`no file ${options.file}`)
  const stage = `import_stage_${Date.now()}_${crypto.randomBytes(6).toString('hex')}`
  await engine.admin.command(compileTemplate('admin/import-people-stage.sql', { stage, table: options.kind }))
  try {
    const bad: LineProblem[] = []
    let badLines = 0
    let batch: Record<string, unknown>[] = []
    const flush = async () => {
      if (batch.length && (options.skipBad || badLines === 0)) await engine.admin.insert(stage, batch)
      batch = []
    }
    const refuse = (number: number, problems: string[]) => {
      badLines += 1
      if (bad.length < MAX_LISTED_BAD_LINES) bad.push({ line: number, problems })
    }
    for await (const line of readLines(fs.createReadStream(options.file), MAX_LINE_BYTES)) {
      if ('tooLongBytes' in line) {
        refuse(line.number, [`the line is ${line.tooLongBytes} bytes, longer than the limit of ${MAX_LINE_BYTES} bytes (1 MiB)`])
        continue
      }
      if (!line.text.trim()) continue
      const { row, problems } = parsePeopleLine(options.kind, line.text, options.projectId, options.fromProject)
      if (row) batch.push(row)
      else refuse(line.number, problems)
      if (batch.length >= BATCH_ROWS) await flush()
    }
    await flush()
    if (badLines && !options.skipBad) return { imported: 0, duplicates: 0, skipped: 0, badLines, bad }
    const params: Params = { stage, projectId: options.projectId }
    const newRows = compileInner(KINDS[options.kind].newRows, params)
    const [counts] = await engine.admin.rows<{ staged: number | string; new_rows: number | string }>(
      compileTemplate('admin/import-people-count.sql', params, { new_people: newRows }),
    )
    await engine.admin.command(compileTemplate('admin/import-people-move.sql', { ...params, table: options.kind }, { new_people: newRows }))
    const imported = Number(counts.new_rows)
    return { imported, duplicates: Number(counts.staged) - imported, skipped: badLines, badLines, bad }
  } finally {
    await engine.admin.command(compileTemplate('admin/import-drop.sql', { stage }))
  }
}

/** Rows per export statement: a chunk by id after the last one, so memory stays bounded. */
const EXPORT_CHUNK_ROWS = 10_000

/** Writes the project's profiles or groups (each its newest version) as NDJSON to `out`; returns how many. */
export async function exportPeople(engine: Engine, options: { kind: PeopleKind; projectId: string; out: string }): Promise<number> {
  if (!(await findProject(engine, options.projectId))) throw new ControlError(`no project "${options.projectId}"`)
  const partial = `${options.out}.partial`
  const file = fs.openSync(partial, 'w')
  let written = 0
  try {
    for (let afterId = ''; ; ) {
      const rows = await engine.admin.rows<{ id: string }>(
        compileTemplate(KINDS[options.kind].exported, { projectId: options.projectId, afterId, rows: EXPORT_CHUNK_ROWS }),
      )
      if (rows.length) fs.writeSync(file, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`)
      written += rows.length
      if (rows.length < EXPORT_CHUNK_ROWS) break
      afterId = rows[rows.length - 1].id
    }
    fs.closeSync(file)
    fs.renameSync(partial, options.out)
    return written
  } catch (error) {
    fs.closeSync(file)
    fs.rmSync(partial, { force: true })
    throw error
  }
}
