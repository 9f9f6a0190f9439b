// `explain`: the exact SQL and params a request would run, compiled without running anything.
import { prepare, type Scope } from '../queries/pipeline'
import { QueryError } from '../queries/errors'
import { ROUTES, isResourceRoute, type Route } from './routes'

export function matchRoute(pathname: string): { route: Route; params: Record<string, string> } | undefined {
  const segments = pathname.split('/').filter(Boolean)
  for (const route of ROUTES) {
    const pattern = route.path.split('/').filter(Boolean)
    if (pattern.length !== segments.length) continue
    const params: Record<string, string> = {}
    const matches = pattern.every((part, index) => {
      if (part.startsWith(':')) {
        params[part.slice(1)] = decodeURIComponent(segments[index])
        return true
      }
      return part === segments[index]
    })
    if (matches) return { route, params }
  }
  return undefined
}

function queryOf(parsed: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const [key, value] of parsed.searchParams) {
    const previous = query[key]
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return query
}

/** The project a request URL names, in its path or (charts) its query string. */
export function projectIdOf(url: string): string | undefined {
  const parsed = new URL(url, 'http://explain')
  const match = matchRoute(parsed.pathname)
  if (!match) return undefined
  if (isResourceRoute(match.route) && match.route.projectFrom === 'query') {
    return parsed.searchParams.get('projectId') ?? parsed.searchParams.get('project_id') ?? undefined
  }
  return match.params.projectId
}

/** The compiled statement of a request URL (path and query string), as text for review. */
export function explainRequest(url: string, scopeFor: (projectId: string) => Scope): string {
  const parsed = new URL(url, 'http://explain')
  const match = matchRoute(parsed.pathname)
  if (!match) throw new QueryError('not_found', `No endpoint ${parsed.pathname}`)
  const { route } = match
  if (!isResourceRoute(route)) throw new QueryError('not_found', `explain covers the insights endpoints and charts; ${parsed.pathname} is not one`)
  const projectId = projectIdOf(url)
  if (!projectId) throw new QueryError('invalid_request', 'name the project (projectId)', [{ path: ['projectId'], message: '"projectId" is required' }])
  const { compiled } = prepare(route.resource, queryOf(parsed), scopeFor(projectId))
  return [`-- template: ${compiled.template}`, `-- params: ${JSON.stringify(compiled.params, null, 2).replace(/\n/g, '\n-- ')}`, compiled.sql].join('\n')
}
