// Authentication and project authorization, run before any parameter is looked at (DESIGN 6):
// 401 missing/wrong credentials, 403 write clients and read clients on another project, 404 unknown project.
import type { Request, RequestHandler } from 'express'
import { QueryError } from '../queries/errors'
import type { ApiClient, Directory } from './directory'

function credentialsOf(req: Request): { id: string; secret: string } | null {
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

export function authenticate(directory: Directory): RequestHandler {
  return async (req, res, next) => {
    const credentials = credentialsOf(req)
    if (!credentials) throw new QueryError('unauthorized', 'Send openpanel-client-id and openpanel-client-secret headers, or HTTP Basic credentials')
    const client = await directory.authenticate(credentials.id, credentials.secret)
    if (!client) throw new QueryError('unauthorized', 'Unknown client or wrong secret')
    if (client.type === 'write') throw new QueryError('forbidden', 'Write clients cannot read data')
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
