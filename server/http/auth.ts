// Authentication and project authorization, run before any parameter is looked at (DESIGN 6):
// 401 missing/wrong credentials, 403 write clients and read clients on another project, 404 unknown project.
import type { Request, RequestHandler } from 'express'
import { ipKeyGenerator } from 'express-rate-limit'
import { QueryError } from '../../queries/core/errors'
import type { ApiClient, Directory } from './directory'
import type { AuthFailureReason } from './metrics'

/** The credentials a request carries (headers or Basic), or null when it carries none. */
export function credentialsOf(req: Request): { id: string; secret: string } | null {
  const id = req.get('openpanel-client-id')
  const secret = req.get('openpanel-client-secret')
  if (id !== undefined || secret !== undefined) return { id: id ?? '', secret: secret ?? '' }
  const header = req.get('authorization')
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null
  if (!match) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return { id: decoded, secret: '' }
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}

/** `onFailure` hears why a request was refused (metrics). */
export function authenticate(directory: Directory, onFailure: (reason: AuthFailureReason) => void = () => undefined): RequestHandler {
  return async (req, res, next) => {
    const refuse = (reason: AuthFailureReason, error: QueryError) => {
      onFailure(reason)
      return error
    }
    const credentials = credentialsOf(req)
    if (!credentials) throw refuse('missing_credentials', new QueryError('unauthorized', 'Send openpanel-client-id and openpanel-client-secret headers, or HTTP Basic credentials'))
    const client = await directory.authenticate(credentials.id, credentials.secret, ipKeyGenerator(req.ip ?? ''))
    if (!client) throw refuse('bad_credentials', new QueryError('unauthorized', 'Unknown client or wrong secret'))
    if (client.type === 'write') throw refuse('write_client', new QueryError('forbidden', 'Write clients cannot read data'))
    res.locals.client = client
    next()
  }
}

/** Checks the client may read `projectId`, then loads the project into `res.locals.project`. */
export async function authorizeProject(directory: Directory, client: ApiClient, projectId: string) {
  if (client.type !== 'root' && client.projectId !== projectId) {
    throw new QueryError('forbidden', 'This client cannot read that project')
  }
  const project = await directory.project(projectId)
  if (!project) throw new QueryError('not_found', `No project "${projectId}"`)
  return project
}

/** The project named in the query string (`projectId`/`project_id`), or a read client's own project. */
export async function resolveQueryProject(directory: Directory, client: ApiClient, query: Record<string, unknown>) {
  const named = [query.projectId, query.project_id].filter((value) => value !== undefined)
  if (named.some((value) => typeof value !== 'string' || value === '')) throw new QueryError('invalid_request', '"projectId" must be one project id', [{ path: ['projectId'], message: '"projectId" must be one project id' }])
  if (named.length === 2 && named[0] !== named[1]) throw new QueryError('invalid_request', '"projectId" and "project_id" differ', [{ path: ['project_id'], message: '"projectId" and "project_id" name different projects' }])
  const projectId = (named[0] as string | undefined) ?? (client.type === 'read' ? client.projectId : undefined)
  if (!projectId) throw new QueryError('invalid_request', '"projectId" is required for a root client', [{ path: ['projectId'], message: '"projectId" is required for a root client' }])
  return authorizeProject(directory, client, projectId)
}
