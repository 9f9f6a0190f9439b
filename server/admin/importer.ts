// `import --project P --file events.ndjson`: validates every line against the event schema, reports
// bad lines by number, and writes every good line or none: lines are staged in a table of their own and
// moved into `events` by one insert that skips the ids already stored, so a rerun never duplicates.
import crypto from 'node:crypto'
import fs from 'node:fs'
import { compileInner, compileTemplate, sqlOnly, type Params } from '../../queries/core/compiled'
import { FIRST_YEAR, LAST_YEAR } from '../../queries/core/dates'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { partialRowColumns, partialRowSelect } from '../../queries/sessions/session-fields'
import { EVENT_TEXT_COLUMNS } from '../../queries/core/registry'
import { compileSchema, schemaIssues } from '../../queries/core/validate'
import type { Engine } from '../engine'
import { ControlError, findProject } from './control'
import { toSnakeKeys } from './event-keys'
import { readLines } from './line-reader'

const eventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'device_id', 'session_id', 'created_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    project_id: { type: 'string' },
    name: { type: 'string', minLength: 1 },
    device_id: { type: 'string', minLength: 1 },
    session_id: { type: 'string', minLength: 1 },
    created_at: { type: 'string', format: 'date-time' },
    ...Object.fromEntries(EVENT_TEXT_COLUMNS.map((column) => [column, { type: 'string' }])),
    latitude: { type: ['number', 'null'], minimum: -90, maximum: 90 },
    longitude: { type: ['number', 'null'], minimum: -180, maximum: 180 },
    duration: { type: 'integer', minimum: 0, maximum: 4294967295 },
    revenue: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    groups: { type: 'array', items: { type: 'string' } },
    properties: { type: 'object', additionalProperties: { type: 'string' } },
    imported_at: { type: ['string', 'null'], format: 'date-time' },
  },
}
const validateEvent = compileSchema(eventSchema, { coerce: false, keyNoun: 'field' })

export interface LineProblem {
  line: number
  problems: string[]
}

export interface ImportReport {
  /** Events written by this run. */
  imported: number
  /** Good lines not written again: their id is already stored, or came earlier in the file. */
  duplicates: number
  /** Staged sessions whose partial rows an earlier run, killed while it moved their events, left out: rebuilt. */
  resessioned: number
  /** UTC days of the staged range whose discovery summaries such a run left short of their events: rebuilt. */
  rediscovered: number
  /** Bad lines left out (with --skip-bad). */
  skipped: number
  /** Bad lines found, all of them. */
  badLines: number
  /** The first MAX_LISTED_BAD_LINES of them, with their problems. */
  bad: LineProblem[]
}

export interface ImportOptions {
  projectId: string
  file: string
  skipBad: boolean
  /** The project the file's `project_id`s name when it is another's export: its lines go into `projectId`. */
  fromProject?: string
  /** Lines per staging insert. */
  batchRows?: number
  /** Called with the number of lines read so far, after each staged batch and at the end. */
  onProgress?: (lines: number) => void
}

/** The longest line read; a longer one is a bad line, never held whole. */
export const MAX_LINE_BYTES = 1024 * 1024
/** Bad lines listed with their problems; the rest are only counted. */
export const MAX_LISTED_BAD_LINES = 100
/** Problems listed per bad line, each cut to this many characters (a field name may be long). */
const MAX_PROBLEMS_PER_LINE = 10
const MAX_PROBLEM_CHARS = 200

/** The first problems of a line, each cut short, and how many more there were. */
function listProblems(problems: string[]): string[] {
  const cut = (problem: string) => (problem.length > MAX_PROBLEM_CHARS ? `${problem.slice(0, MAX_PROBLEM_CHARS)}...` : problem)
  const listed = problems.slice(0, MAX_PROBLEMS_PER_LINE).map(cut)
  return problems.length > listed.length ? [...listed, `and ${problems.length - listed.length} more problem(s)`] : listed
}

/** Whether an instant's UTC date is one the API can ask for (queries/core/dates.ts), so the event can be read. */
const withinApiYears = (instant: Date) => instant.getUTCFullYear() >= FIRST_YEAR && instant.getUTCFullYear() <= LAST_YEAR

/** One line's problems, or the row to insert; `fromProject` is the project id the line may name instead of `projectId`. */
export function parseEventLine(
  text: string,
  projectId: string,
  fromProject?: string,
): { row?: Record<string, unknown>; problems: string[] } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { problems: listProblems([`not JSON: ${(error as Error).message}`]) }
  }
  const keyed =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? toSnakeKeys(value as Record<string, unknown>, Object.keys(eventSchema.properties))
      : { event: value, problems: [] }
  if (keyed.problems.length) return { problems: listProblems(keyed.problems) }
  const problems = schemaIssues(validateEvent, keyed.event).map((issue) => issue.message)
  const event = keyed.event as Record<string, unknown>
  const expected = fromProject ?? projectId
  if (problems.length === 0 && event.project_id !== undefined && event.project_id !== expected) {
    const hint = fromProject
      ? ''
      : ` (a file exported from project "${String(event.project_id)}" goes into --project with --from-project ${String(event.project_id)})`
    problems.push(
      `project_id "${String(event.project_id)}" differs from --${fromProject ? 'from-project' : 'project'} "${expected}"${hint}`,
    )
  }
  if (problems.length === 0 && !withinApiYears(new Date(String(event.created_at)))) {
    problems.push(
      `"created_at" ${String(event.created_at)} is outside ${FIRST_YEAR}-01-01 to ${LAST_YEAR}-12-31 (UTC), the dates the API can ask for`,
    )
  }
  if (problems.length) return { problems: listProblems(problems) }
  // The schema's uuid format also admits the URN form; the engine takes the bare UUID.
  const row: Record<string, unknown> = {
    ...event,
    project_id: projectId,
    id: String(event.id)
      .toLowerCase()
      .replace(/^urn:uuid:/, ''),
  }
  row.profile_id = event.profile_id || event.device_id
  row.created_at = toClickHouseTime(new Date(String(event.created_at)))
  if (typeof event.imported_at === 'string') row.imported_at = toClickHouseTime(new Date(event.imported_at))
  return { row, problems: [] }
}

const STAGE_NAME = /^import_stage_(\d+)_[0-9a-f]+(?:_sessions|_days)?$/
/** A staging table this old is a killed import's leftover, even on a server shared with other imports. */
const STALE_STAGE_MS = 24 * 3_600_000

/** Number of lines of a file, read once without parsing (the total for the progress bar). */
export async function countLines(file: string): Promise<number> {
  let lines = 0
  let last = 10
  for await (const chunk of fs.createReadStream(file)) {
    const bytes = chunk as Buffer
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines += 1
    if (bytes.length) last = bytes[bytes.length - 1]
  }
  return last === 10 ? lines : lines + 1
}

/** Drops the staging tables of killed imports: all of them on the embedded engine (this process owns it). */
async function dropLeftoverStages(engine: Engine): Promise<void> {
  const tables = await engine.admin.rows<{ name: string }>(compileTemplate('admin/import-leftovers.sql', {}))
  for (const { name } of tables) {
    const created = Number(STAGE_NAME.exec(name)?.[1])
    if (engine.settings.mode === 'embedded' || Date.now() - created > STALE_STAGE_MS)
      await engine.admin.command(compileTemplate('admin/import-drop.sql', { stage: name }))
  }
}

/** Lines per staging insert, and the most bytes of lines one insert holds. */
const DEFAULT_BATCH_ROWS = 10_000
const MAX_BATCH_BYTES = 16 * 1024 * 1024

/**
 * Stages the file's good lines; returns the bad ones (the first MAX_LISTED_BAD_LINES) and their number.
 * Staging stops at the first bad line unless skipBad.
 */
async function stageLines(engine: Engine, stage: string, options: ImportOptions): Promise<{ bad: LineProblem[]; badLines: number }> {
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS
  const bad: LineProblem[] = []
  let badLines = 0
  let batch: Record<string, unknown>[] = []
  let batchBytes = 0
  let number = 0
  const flush = async () => {
    if (batch.length && (options.skipBad || badLines === 0)) await engine.admin.insert(stage, batch)
    batch = []
    batchBytes = 0
    options.onProgress?.(number)
  }
  const refuse = (line: number, problems: string[]) => {
    badLines += 1
    if (bad.length < MAX_LISTED_BAD_LINES) bad.push({ line, problems })
  }
  options.onProgress?.(0)
  for await (const line of readLines(fs.createReadStream(options.file), MAX_LINE_BYTES)) {
    number = line.number
    if ('tooLongBytes' in line) {
      refuse(number, [`the line is ${line.tooLongBytes} bytes, longer than the limit of ${MAX_LINE_BYTES} bytes (1 MiB) for one event`])
      continue
    }
    if (!line.text.trim()) continue
    const { row, problems } = parseEventLine(line.text, options.projectId, options.fromProject)
    if (row) {
      batch.push({ line: number, ...row })
      batchBytes += Buffer.byteLength(line.text)
    } else {
      refuse(number, problems)
    }
    if (batch.length >= batchRows || batchBytes >= MAX_BATCH_BYTES) await flush()
  }
  await flush()
  return { bad, badLines }
}

/**
 * Rebuilds the partial rows of the staged sessions whose stored events outnumber what their rows count
 * (admin/import-resession-find.sql), invalidating the compactions of the days they lie in (the settled
 * check's invariant: admin/compact-invalidate.sql); returns how many. On a cluster `sessions` is Distributed, which a
 * mutation cannot name: the sessions are reported instead.
 */
async function resession(engine: Engine, params: Params): Promise<number> {
  const found = `${params.stage}_sessions`
  await engine.admin.command(compileTemplate('admin/import-resession-find.sql', { ...params, found }))
  try {
    const [{ rows }] = await engine.admin.rows<{ rows: number | string }>(compileTemplate('admin/compact-stage-rows.sql', { stage: found }))
    const sessions = Number(rows)
    if (sessions === 0) return 0
    if (engine.settings.cluster) {
      throw new ControlError(
        `${sessions} session(s) of this file have stored events without their partial rows in sessions (an earlier import was killed while it moved them); on a cluster they are not rebuilt`,
      )
    }
    const rebuild = { projectId: params.projectId, found }
    // The compactions of the days these rows lie in no longer hold: invalidated before the rows change, and
    // again after (a compaction may have recorded a day in between).
    const invalidate = compileTemplate('admin/compact-invalidate.sql', rebuild)
    await engine.admin.command(invalidate)
    await engine.admin.command(compileTemplate('admin/import-resession-clear.sql', rebuild))
    await engine.admin.command(
      compileTemplate('admin/import-resession.sql', rebuild, {
        partial_columns: sqlOnly(partialRowColumns()),
        partial_row: sqlOnly(partialRowSelect()),
      }),
    )
    await engine.admin.command(invalidate)
    return sessions
  } finally {
    await engine.admin.command(compileTemplate('admin/import-drop.sql', { stage: found }))
  }
}

const DISCOVERY_SUMMARIES = [
  { table: 'event_names', rebuild: 'admin/import-discovery-names.sql' },
  { table: 'event_property_keys', rebuild: 'admin/import-discovery-keys.sql' },
  { table: 'event_property_values', rebuild: 'admin/import-discovery-values.sql' },
] as const

/**
 * Rebuilds the discovery summaries' rows of the staged range's days whose summaries do not count the
 * stored events (admin/import-discovery-find.sql); returns how many days. On a cluster the summaries are
 * Distributed, which a mutation cannot name: the days are reported instead.
 */
async function rediscover(engine: Engine, params: Params): Promise<number> {
  const found = `${params.stage}_days`
  await engine.admin.command(compileTemplate('admin/import-discovery-find.sql', { ...params, found }))
  try {
    const [{ rows }] = await engine.admin.rows<{ rows: number | string }>(compileTemplate('admin/compact-stage-rows.sql', { stage: found }))
    const days = Number(rows)
    if (days === 0) return 0
    if (engine.settings.cluster) {
      throw new ControlError(
        `${days} day(s) of this file have stored events their discovery summaries do not count (an earlier import was killed while it moved them); on a cluster they are not rebuilt`,
      )
    }
    for (const { table } of DISCOVERY_SUMMARIES) {
      await engine.admin.command(
        compileTemplate('admin/import-discovery-clear.sql', { summary: table, projectId: params.projectId, found }),
      )
    }
    for (const { rebuild } of DISCOVERY_SUMMARIES)
      await engine.admin.command(compileTemplate(rebuild, { projectId: params.projectId, found }))
    return days
  } finally {
    await engine.admin.command(compileTemplate('admin/import-drop.sql', { stage: found }))
  }
}

export async function importEvents(engine: Engine, options: ImportOptions): Promise<ImportReport> {
  if (!(await findProject(engine, options.projectId))) throw new ControlError(`no project "${options.projectId}"`)
  if (!fs.existsSync(options.file)) throw new ControlError(`no file ${options.file}`)
  await dropLeftoverStages(engine)
  const stage = `import_stage_${Date.now()}_${crypto.randomBytes(6).toString('hex')}`
  await engine.admin.command(compileTemplate('admin/import-stage.sql', { stage }))
  try {
    const { bad, badLines } = await stageLines(engine, stage, options)
    if (badLines && !options.skipBad) return { imported: 0, duplicates: 0, resessioned: 0, rediscovered: 0, skipped: 0, badLines, bad }
    const params: Params = { stage, projectId: options.projectId }
    const newEvents = compileInner('admin/import-new-events.sql', params)
    const [counts] = await engine.admin.rows<{ staged: number | string; new_events: number | string }>(
      compileTemplate('admin/import-count.sql', params, { new_events: newEvents }),
    )
    await engine.admin.command(compileTemplate('admin/import-move.sql', params, { new_events: newEvents }))
    const imported = Number(counts.new_events)
    const duplicates = Number(counts.staged) - imported
    // Only events stored before this run can lack their partial rows: none to look for in a first run.
    const resessioned = duplicates > 0 ? await resession(engine, params) : 0
    const rediscovered = duplicates > 0 ? await rediscover(engine, params) : 0
    return { imported, duplicates, resessioned, rediscovered, skipped: badLines, badLines, bad }
  } finally {
    await engine.admin.command(compileTemplate('admin/import-drop.sql', { stage }))
  }
}
