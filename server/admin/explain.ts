// `explain`: the exact statements and params a request runs, compiled without running them. A session
// question's settled check is run first when an engine is at hand, so its statement is printed compiled
// with the settled days it runs with. The route and query string are resolved by Express itself, with the
// gateway's own query parser.
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import express, { type NextFunction, type Request, type Response } from 'express'
import { QueryError } from '../../queries/core/errors'
import type { CompiledQuery } from '../../queries/core/compiled'
import type { Scope, SettledRow } from '../../queries/core/pipeline'
import { settledCheckOf, statementsOf, type Statement } from '../../queries/run/statements'
import { QUERY_PARSER, ROUTES, answersWithOneStatement, parametersOf, resourceOf, type Route } from '../routes/routes'

/** A request as the gateway's router sees it. */
export interface ResolvedRequest {
  route: Route
  params: Record<string, string | string[]>
  query: Record<string, unknown>
}

type Outcome = { resolved?: ResolvedRequest; error?: unknown }
const pending = new WeakMap<IncomingMessage, (outcome: Outcome) => void>()
const settle = (req: Request, outcome: Outcome) => pending.get(req)?.(outcome)

/** An app with the gateway's routes and query parser whose handlers only record what they were given. */
function createResolver(routes: Route[]): express.Express {
  const app = express()
  app.set('query parser', QUERY_PARSER)
  for (const route of routes) {
    app.get(route.path, (req: Request) =>
      settle(req, {
        resolved: { route, params: { ...req.params }, query: parametersOf(req.query as Record<string, unknown>, req.params) },
      }),
    )
  }
  app.use((req: Request) => settle(req, {}))
  app.use((error: unknown, req: Request, _res: Response, _next: NextFunction) => settle(req, { error }))
  return app
}

const resolver = createResolver(ROUTES)

/** The route, path params and parsed query of a request URL (`/path?query` or a full URL), as served. */
export function resolveRequest(url: string): Promise<ResolvedRequest | undefined> {
  const parsed = new URL(url, 'http://explain')
  const req = new IncomingMessage(new Socket())
  req.method = 'GET'
  req.url = `${parsed.pathname}${parsed.search}`
  return new Promise((resolve, reject) => {
    pending.set(req, ({ resolved, error }) => {
      if (error) reject(new QueryError('invalid_request', `Express refused ${req.url}: ${(error as Error).message}`))
      else resolve(resolved)
    })
    resolver(req, new ServerResponse(req))
  })
}

/** The project a request names: its `:projectId` path segment, else its `projectId` (or `project_id`) parameter. */
export function projectIdIn({ params, query }: ResolvedRequest): string | undefined {
  if (params.projectId !== undefined) return String(params.projectId)
  const named = query.projectId ?? query.project_id
  return typeof named === 'string' && named !== '' ? named : undefined
}

/**
 * What `explain` needs to know of a request URL before it compiles: the project it names (in its path or its
 * query string), and whether it is a session question, whose route's resource runs a settled check first.
 */
export async function explainTarget(url: string): Promise<{ projectId?: string; settledCheck: boolean }> {
  const resolved = await resolveRequest(url)
  return { projectId: resolved && projectIdIn(resolved), settledCheck: resolved?.route.resource.settledCheck !== undefined }
}

function formatStatement({ compiled }: Statement): string {
  return [
    `-- template: ${compiled.template}`,
    `-- params: ${JSON.stringify(compiled.params, null, 2).replace(/\n/g, '\n-- ')}`,
    compiled.sql,
  ].join('\n')
}

/** Runs a session question's settled check on the engine and gives its rows. */
export type CheckRun = (check: CompiledQuery) => Promise<readonly SettledRow[]>

/**
 * The compiled statements of a request URL (path and query string) on an engine that `streams` or not, as
 * text for review. With `runCheck`, a session question's settled check runs first and its statement is
 * compiled with the rows it returned, exactly as the gateway compiles it; without, with no day settled.
 */
export async function explainRequest(
  url: string,
  scopeFor: (projectId: string) => Scope,
  streams: boolean,
  runCheck?: CheckRun,
): Promise<string> {
  const resolved = await resolveRequest(url)
  if (!resolved) throw new QueryError('not_found', `No endpoint ${new URL(url, 'http://explain').pathname}`)
  const projectId = projectIdIn(resolved)
  if (!projectId)
    throw new QueryError('invalid_request', 'name the project (projectId)', [{ path: ['projectId'], message: '"projectId" is required' }])
  const resource = resourceOf(resolved.route)
  const scope = scopeFor(projectId)
  const check = runCheck && settledCheckOf(resource, resolved.query, scope)
  const settled = check ? await runCheck(check) : undefined
  const statements = statementsOf(resource, resolved.query, scope, streams, settled)
  if (answersWithOneStatement(resolved.route) && statements.length === 1) return formatStatement(statements[0])
  return statements.map((statement) => `-- statement: ${statement.label}\n${formatStatement(statement)}`).join('\n\n')
}
