// Administrative writes and listings for projects and API clients (CLI and demo bootstrap only; the
// gateway itself never writes).
import crypto from 'node:crypto'
import { IANAZone } from 'luxon'
import { toClickHouseTime } from '../../queries/core/pipeline'
import type { Engine } from '../engine'
import type { ClientType } from '../http/directory'
import { generateSecret, hashSecret } from '../secrets'

export class ControlError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ControlError'
  }
}

export const PROJECT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/
const CLIENT_TYPES: ClientType[] = ['read', 'write', 'root']

const nowText = () => toClickHouseTime(new Date())

export interface ProjectRow {
  id: string
  name: string
  timezone: string
  created_at: string
}

export interface ClientListing {
  id: string
  name: string
  type: ClientType
  project_id: string
  created_at: string
  revoked: number
}

async function select<T>(engine: Engine, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await engine.client.query({ query, query_params: params, format: 'JSONEachRow' })
  return result.json<T>()
}

export async function listProjects(engine: Engine): Promise<ProjectRow[]> {
  return select<ProjectRow>(engine, 'SELECT id, name, timezone, created_at FROM projects FINAL ORDER BY id')
}

export async function findProject(engine: Engine, id: string): Promise<ProjectRow | undefined> {
  const rows = await select<ProjectRow>(engine, 'SELECT id, name, timezone, created_at FROM projects FINAL WHERE id = {id:String}', { id })
  return rows[0]
}

export async function createProject(engine: Engine, input: { id: string; name?: string; timezone?: string }): Promise<ProjectRow> {
  const problems: string[] = []
  if (!PROJECT_ID_PATTERN.test(input.id)) problems.push(`project id "${input.id}" must be 1-64 of a-z, 0-9, _ and -, starting with a letter or digit`)
  const timezone = input.timezone ?? 'UTC'
  if (!IANAZone.isValidZone(timezone)) problems.push(`"${timezone}" is not an IANA time zone (e.g. Europe/Berlin)`)
  if (problems.length) throw new ControlError(problems.join('; '))
  if (await findProject(engine, input.id)) throw new ControlError(`project "${input.id}" already exists`)
  const now = nowText()
  const row = { id: input.id, name: input.name ?? input.id, timezone, created_at: now, updated_at: now }
  await engine.client.insert({ table: 'projects', values: [row], format: 'JSONEachRow' })
  return { id: row.id, name: row.name, timezone, created_at: now }
}

export async function createApiClient(
  engine: Engine,
  input: { type: string; projectId?: string; name?: string },
): Promise<{ id: string; secret: string; type: ClientType; projectId: string }> {
  if (!CLIENT_TYPES.includes(input.type as ClientType)) throw new ControlError(`client type must be one of ${CLIENT_TYPES.join(', ')}, got "${input.type}"`)
  const type = input.type as ClientType
  const projectId = input.projectId ?? ''
  if (type === 'root' && projectId) throw new ControlError('a root client reads every project; do not give --project')
  if (type !== 'root') {
    if (!projectId) throw new ControlError(`a ${type} client needs --project`)
    if (!(await findProject(engine, projectId))) throw new ControlError(`no project "${projectId}"`)
  }
  const id = crypto.randomUUID()
  const secret = generateSecret()
  const now = nowText()
  await engine.client.insert({
    table: 'api_clients',
    values: [{ id, name: input.name ?? `${type} client`, type, project_id: projectId, secret_hash: await hashSecret(secret), created_at: now, revoked: 0, updated_at: now }],
    format: 'JSONEachRow',
  })
  return { id, secret, type, projectId }
}

export async function listApiClients(engine: Engine, projectId?: string): Promise<ClientListing[]> {
  const where = projectId === undefined ? '' : 'WHERE project_id = {projectId:String}'
  return select<ClientListing>(
    engine,
    `SELECT id, name, type, project_id, created_at, revoked FROM api_clients FINAL ${where} ORDER BY created_at, id`,
    projectId === undefined ? {} : { projectId },
  )
}

export async function revokeApiClient(engine: Engine, id: string): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new ControlError(`"${id}" is not a client id (a UUID)`)
  const rows = await select<Record<string, unknown>>(engine, 'SELECT * FROM api_clients FINAL WHERE id = {id:UUID}', { id })
  if (!rows[0]) throw new ControlError(`no client "${id}"`)
  if (rows[0].revoked) throw new ControlError(`client "${id}" is already revoked`)
  await engine.client.insert({ table: 'api_clients', values: [{ ...rows[0], revoked: 1, updated_at: nowText() }], format: 'JSONEachRow' })
}
