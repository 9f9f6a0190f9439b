// Authentication and project authorization, run before any parameter is looked at:
// 401 missing/wrong credentials, 403 write clients and read clients on another project, 404 unknown project.
import type { Request, RequestHandler } from 'express'
import { ipKeyGenerator } from 'express-rate-limit'
import { QueryError } from '../../queries/core/errors'
import type { ApiClient, Directory } from './directory'
import type { FailedAttempts } from './failed-attempts'
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

export interface AuthenticateOptions {
  directory: Directory
  /** Failures per (address, client id), counted after a secret fails to verify. */
  failures: FailedAttempts
  /** Hears why a request was refused (metrics). */
  onFailure?: (reason: AuthFailureReason) => void
}

/**
 * Verifies the credentials before anything else. A pair (address, id) past its failure limit still gets
 * its secret checked (on the suspect tier's turns): a secret that verifies passes, a wrong one answers 429.
 * A wrong secret refused before is answered from memory and not counted again.
 */
export function authenticate({ directory, failures, onFailure = () => undefined }: AuthenticateOptions): RequestHandler {
  return async (req, res, next) => {
    const refuse = (reason: AuthFailureReason, error: QueryError) => {
      onFailure(reason)
      return error
    }
    const credentials = credentialsOf(req)
    if (!credentials)
      throw refuse(
        'missing_credentials',
        new QueryError('unauthorized', 'Send openpanel-client-id and openpanel-client-secret headers, or HTTP Basic credentials'),
      )
    const address = ipKeyGenerator(req.ip ?? '')
    const verdict = await directory.judge(credentials.id, credentials.secret, {
      caller: address,
      suspect: failures.exceeded(address, credentials.id),
    })
    if (verdict.client === null) {
      const retryAfter = verdict.remembered ? failures.retryAfter(address, credentials.id) : failures.record(address, credentials.id)
      if (retryAfter === undefined) throw refuse('bad_credentials', new QueryError('unauthorized', 'Unknown client or wrong secret'))
      res.set('Retry-After', String(retryAfter))
      throw refuse(
        'bad_credentials',
        new QueryError('rate_limited', 'Too many failed authentication attempts for this client id from this address'),
      )
    }
    if (verdict.client.type === 'write') throw refuse('write_client', new QueryError('forbidden', 'Write clients cannot read data'))
    res.locals.client = verdict.client
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
  if (named.some((value) => typeof value !== 'string' || value === ''))
    throw new QueryError('invalid_request', '"projectId" must be one project id', [
      { path: ['projectId'], message: '"projectId" must be one project id' },
    ])
  if (named.length === 2 && named[0] !== named[1])
    throw new QueryError('invalid_request', '"projectId" and "project_id" differ', [
      { path: ['project_id'], message: '"projectId" and "project_id" name different projects' },
    ])
  const projectId = (named[0] as string | undefined) ?? (client.type === 'read' ? client.projectId : undefined)
  if (!projectId)
    throw new QueryError('invalid_request', '"projectId" is required for a root client', [
      { path: ['projectId'], message: '"projectId" is required for a root client' },
    ])
  return authorizeProject(directory, client, projectId)
}
