// `explain`: the exact statements and params a request would run, compiled without running anything.
// The route and query string are resolved by Express itself, with the gateway's own query parser.
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import express, { type NextFunction, type Request, type Response } from 'express'
import type { CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { compileCsvChunk } from '../../queries/export/export-csv'
import { compileCount, compileProfiles, compileRows, parseExport, type ExportQuery } from '../../queries/export/export-events'
import { STREAM_CHUNK_ROWS } from '../../queries/export/export-stream'
import { prepare, type Scope } from '../../queries/core/pipeline'
import { QUERY_PARSER } from '../http/app'
import { ROUTES, isResourceRoute, type Route } from '../http/routes'

/** A request as the gateway's router sees it. */
export interface ResolvedRequest {
  route: Route
  params: Record<string, string | string[]>
  query: Record<string, unknown>
}

/** One statement of a request, named when a request runs several. */
export interface Statement {
  label: string
  compiled: CompiledQuery
}

type Outcome = { resolved?: ResolvedRequest; error?: unknown }
const pending = new WeakMap<IncomingMessage, (outcome: Outcome) => void>()
const settle = (req: Request, outcome: Outcome) => pending.get(req)?.(outcome)

/** An app with the gateway's routes and query parser whose handlers only record what they were given. */
function createResolver(routes: Route[]): express.Express {
  const app = express()
  app.set('query parser', QUERY_PARSER)
  for (const route of routes) {
    app.get(route.path, (req: Request) => settle(req, { resolved: { route, params: { ...req.params }, query: { ...(req.query as Record<string, unknown>) } } }))
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

/** The project a request URL names, in its path or its query string. */
export async function projectIdOf(url: string): Promise<string | undefined> {
  const resolved = await resolveRequest(url)
  return resolved && projectIdIn(resolved)
}

/**
 * `/export/events`: a JSON page runs its rows and its count; a stream (csv, ndjson) runs one chunk
 * statement after another, each continuing after the previous chunk's last row. With `profile`, the
 * profiles of the rows are looked up once the rows are in.
 */
function exportEventStatements(query: ExportQuery): Statement[] {
  const profiles: Statement[] = query.includes.includes('profile')
    ? [{ label: 'profiles (ids: the profile ids of the rows)', compiled: compileProfiles(query, []) }]
    : []
  const label = `chunk (${STREAM_CHUNK_ROWS} rows; the next chunk adds the keyset of the previous chunk's last row)`
  // The engine writes a CSV chunk whole, profiles included; an NDJSON chunk's profiles are looked up after it.
  if (query.format === 'csv') return [{ label, compiled: compileCsvChunk(query, { rows: STREAM_CHUNK_ROWS }) }]
  if (query.format === 'ndjson') return [{ label, compiled: compileRows(query, { rows: STREAM_CHUNK_ROWS }) }, ...profiles]
  const current = query.after ? query.after.page + 1 : (query.page ?? 1)
  const offset = query.after ? 0 : (current - 1) * query.limit
  return [
    { label: 'rows (one more than the page, to know whether another follows)', compiled: compileRows(query, { after: query.after, offset, rows: query.limit + 1 }) },
    { label: 'count', compiled: compileCount(query) },
    ...profiles,
  ]
}

/** Routes answered by their own handler whose statements explain can compile. */
const HANDLER_STATEMENTS: Record<string, (raw: Record<string, unknown>, scope: Scope) => Statement[]> = {
  '/export/events': (raw, scope) => exportEventStatements(parseExport(raw, scope)),
}

/** Every statement a route runs for a parsed query string, compiled (throws a QueryError on bad input). */
export function statementsOf(route: Route, raw: Record<string, unknown>, scope: Scope): Statement[] {
  if (isResourceRoute(route)) return [{ label: route.resource.name, compiled: prepare(route.resource, raw, scope).compiled }]
  const compile = HANDLER_STATEMENTS[route.path]
  if (!compile) throw new QueryError('not_found', `explain cannot compile ${route.path}`)
  return compile(raw, scope)
}

/** Whether explain (and the startup check) can compile a route's statements. */
export const isExplainable = (route: Route): boolean => isResourceRoute(route) || Object.hasOwn(HANDLER_STATEMENTS, route.path)

function formatStatement({ compiled }: Statement): string {
  return [`-- template: ${compiled.template}`, `-- params: ${JSON.stringify(compiled.params, null, 2).replace(/\n/g, '\n-- ')}`, compiled.sql].join('\n')
}

/** The compiled statements of a request URL (path and query string), as text for review. */
export async function explainRequest(url: string, scopeFor: (projectId: string) => Scope): Promise<string> {
  const resolved = await resolveRequest(url)
  if (!resolved) throw new QueryError('not_found', `No endpoint ${new URL(url, 'http://explain').pathname}`)
  const projectId = projectIdIn(resolved)
  if (!projectId) throw new QueryError('invalid_request', 'name the project (projectId)', [{ path: ['projectId'], message: '"projectId" is required' }])
  const statements = statementsOf(resolved.route, resolved.query, scopeFor(projectId))
  if (isResourceRoute(resolved.route)) return statements.map(formatStatement).join('\n\n')
  return statements.map((statement) => `-- statement: ${statement.label}\n${formatStatement(statement)}`).join('\n\n')
}
