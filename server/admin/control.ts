// Administrative writes and listings for projects and API clients (CLI and demo bootstrap only; the
// gateway itself never writes).
import crypto from 'node:crypto'
import { IANAZone } from 'luxon'
import { compileTemplate } from '../../queries/core/compiled'
import { toClickHouseTime } from '../../queries/core/pipeline'
import type { Engine } from '../engine'
import { UUID_PATTERN } from '../../queries/core/validate'
import { CLIENT_TYPES, type ClientType } from '../client-types'
import { generateSecret, hashSecret } from '../secrets'

export class ControlError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ControlError'
  }
}

export const PROJECT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/

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

export async function listProjects(engine: Engine): Promise<ProjectRow[]> {
  return engine.admin.rows<ProjectRow>(compileTemplate('control/project-list.sql', {}))
}

export async function findProject(engine: Engine, id: string): Promise<ProjectRow | undefined> {
  const rows = await engine.admin.rows<ProjectRow>(compileTemplate('control/project-find.sql', { id }))
  return rows[0]
}

export async function createProject(engine: Engine, input: { id: string; name?: string; timezone?: string }): Promise<ProjectRow> {
  const problems: string[] = []
  if (!PROJECT_ID_PATTERN.test(input.id))
    problems.push(`project id "${input.id}" must be 1-64 of a-z, 0-9, _ and -, starting with a letter or digit`)
  const timezone = input.timezone ?? 'UTC'
  if (!IANAZone.isValidZone(timezone)) problems.push(`"${timezone}" is not an IANA time zone (e.g. Europe/Berlin)`)
  if (problems.length) throw new ControlError(problems.join('; '))
  if (await findProject(engine, input.id)) throw new ControlError(`project "${input.id}" already exists`)
  const now = nowText()
  const name = input.name ?? input.id
  await engine.admin.command(compileTemplate('control/project-create.sql', { id: input.id, name, timezone, now }))
  return { id: input.id, name, timezone, created_at: now }
}

export async function createApiClient(
  engine: Engine,
  input: { type: string; projectId?: string; name?: string },
): Promise<{ id: string; secret: string; type: ClientType; projectId: string }> {
  if (!CLIENT_TYPES.includes(input.type as ClientType))
    throw new ControlError(`client type must be one of ${CLIENT_TYPES.join(', ')}, got "${input.type}"`)
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
  const name = input.name ?? `${type} client`
  await engine.admin.command(
    compileTemplate('control/client-create.sql', { id, name, type, projectId, secretHash: await hashSecret(secret), now }),
  )
  return { id, secret, type, projectId }
}

export async function listApiClients(engine: Engine, projectId?: string): Promise<ClientListing[]> {
  return engine.admin.rows<ClientListing>(
    compileTemplate('control/client-list.sql', { all: projectId === undefined, projectId: projectId ?? '' }),
  )
}

export async function revokeApiClient(engine: Engine, id: string): Promise<void> {
  if (!UUID_PATTERN.test(id)) throw new ControlError(`"${id}" is not a client id (a UUID)`)
  const [row] = await engine.admin.rows<{ id: string; revoked: number }>(compileTemplate('control/client-find.sql', { id }))
  if (!row) throw new ControlError(`no client "${id}"`)
  if (row.revoked) throw new ControlError(`client "${id}" is already revoked`)
  await engine.admin.command(compileTemplate('control/client-revoke.sql', { id, now: nowText() }))
}
