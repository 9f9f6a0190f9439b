// `import --project P --file events.ndjson`: validates every line against the event schema, reports
// bad lines by number, and writes nothing unless all lines are good (or --skip-bad is given).
import fs from 'node:fs'
import readline from 'node:readline'
import { toClickHouseTime } from '../queries/pipeline'
import { compileSchema, schemaIssues } from '../queries/validate'
import type { Engine } from './engine'
import { ControlError, findProject } from './control'

const TEXT_COLUMNS = [
  'profile_id', 'path', 'origin', 'title', 'referrer', 'referrer_name', 'referrer_type', 'utm_source', 'utm_medium', 'utm_campaign',
  'utm_term', 'utm_content', 'country', 'region', 'city', 'device', 'brand', 'model', 'browser', 'browser_version', 'os', 'os_version',
  'sdk_name', 'sdk_version',
] as const

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
    ...Object.fromEntries(TEXT_COLUMNS.map((column) => [column, { type: 'string' }])),
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
  imported: number
  skipped: number
  bad: LineProblem[]
}

/** One line's problems, or the row to insert. */
export function parseEventLine(text: string, projectId: string): { row?: Record<string, unknown>; problems: string[] } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { problems: [`not JSON: ${(error as Error).message}`] }
  }
  const problems = schemaIssues(validateEvent, value).map((issue) => issue.message)
  const event = value as Record<string, unknown>
  if (problems.length === 0 && event.project_id !== undefined && event.project_id !== projectId) {
    problems.push(`project_id "${String(event.project_id)}" differs from --project "${projectId}"`)
  }
  if (problems.length === 0 && !(Date.parse(String(event.created_at)) >= 0)) problems.push('"created_at" must not be before 1970')
  if (problems.length) return { problems }
  const row: Record<string, unknown> = { ...event, project_id: projectId, id: String(event.id).toLowerCase() }
  row.profile_id = event.profile_id || event.device_id
  row.created_at = toClickHouseTime(new Date(String(event.created_at)))
  if (typeof event.imported_at === 'string') row.imported_at = toClickHouseTime(new Date(event.imported_at))
  return { row, problems: [] }
}

const BATCH_ROWS = 100_000

export async function importEvents(engine: Engine, options: { projectId: string; file: string; skipBad: boolean }): Promise<ImportReport> {
  if (!(await findProject(engine, options.projectId))) throw new ControlError(`no project "${options.projectId}"`)
  if (!fs.existsSync(options.file)) throw new ControlError(`no file ${options.file}`)
  const rows: Record<string, unknown>[] = []
  const bad: LineProblem[] = []
  const lines = readline.createInterface({ input: fs.createReadStream(options.file, 'utf8'), crlfDelay: Infinity })
  let number = 0
  for await (const text of lines) {
    number += 1
    if (!text.trim()) continue
    const { row, problems } = parseEventLine(text, options.projectId)
    if (row) rows.push(row)
    else bad.push({ line: number, problems })
  }
  if (bad.length && !options.skipBad) return { imported: 0, skipped: 0, bad }
  for (let offset = 0; offset < rows.length; offset += BATCH_ROWS) {
    await engine.client.insert({ table: 'events', values: rows.slice(offset, offset + BATCH_ROWS), format: 'JSONEachRow' })
  }
  return { imported: rows.length, skipped: bad.length, bad }
}
