// `explain`: the exact statements and params a request would run, compiled without running anything.
// The route and query string are resolved by Express itself, with the gateway's own query parser.
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import express, { type NextFunction, type Request, type Response } from 'express'
import type { CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { prepare, type AnyMultiResource, type Joins, type Scope } from '../../queries/core/pipeline'
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
 * A multi-statement route: a body runs its statements together, then those that follow from their rows
 * (the profiles of the rows); a stream runs as one statement read a block at a time where the engine
 * `streams` (embedded) and nothing follows from its rows, else one chunk statement after another, each
 * continuing after the previous chunk's last row, with what follows from each chunk.
 */
function multiStatements(multi: AnyMultiResource, raw: Record<string, unknown>, scope: Scope, streams: boolean): Statement[] {
  const query = multi.plan(multi.parse(raw, scope))
  const followers = (statements: Record<string, CompiledQuery>, after: string): Statement[] =>
    Object.entries(statements).map(([name, compiled]) => ({ label: `${name} (${after})`, compiled }))
  if (multi.streams(query)) {
    const whole = streams && multi.compileStream(query)
    if (whole) return [{ label: 'stream (the whole stream as one statement, read a block at a time)', compiled: whole }]
    return [
      { label: "chunk (the first; each next chunk continues after the previous chunk's last row)", compiled: multi.compileChunk(query, undefined) },
      ...followers(multi.followChunk(query, ''), 'for the rows of each chunk, once it is in'),
    ]
  }
  return [
    ...Object.entries(multi.compile(query)).map(([label, compiled]) => ({ label, compiled })),
    ...followers(multi.follow(query, {}), 'for the rows of the page, once they are in'),
  ]
}

/**
 * Every statement a route runs for a parsed query string, compiled (throws a QueryError on bad input), on
 * an engine that `streams` a statement a block at a time (embedded) or not (a server).
 */
export function statementsOf(route: Route, raw: Record<string, unknown>, scope: Scope, streams: boolean): Statement[] {
  if (isResourceRoute(route)) {
    const { compiled } = prepare(route.resource, raw, scope)
    if (!compiled.settledCheck) return [{ label: route.resource.name, compiled }]
    return [
      { label: 'settled check (first, unless the same check ran since the data version last changed; see core/settled-check.ts)', compiled: compiled.settledCheck },
      { label: `${route.resource.name} (settledDays, settledCompactions, regroupFrom and regroupTo bound from the check's rows)`, compiled },
    ]
  }
  return multiStatements(route.multi, raw, scope, streams)
}

/**
 * The statements the resource routes of each `Joins` family run when every one of them is asked for `raw`
 * at once (core/joined-runs.ts). `explain` prints a request alone; the startup check and the template tests
 * compile these too, so a joined statement is as checked as a lone one.
 */
export function joinedStatementsOf(routes: Route[], raw: Record<string, unknown>, scope: Scope): Statement[] {
  const batches = new Map<string, { joins: Joins<unknown>; members: { resource: string; query: unknown }[] }>()
  for (const route of routes) {
    if (!isResourceRoute(route) || !route.resource.joins) continue
    const joins = route.resource.joins
    const { query } = prepare(route.resource, { ...raw }, scope)
    const key = JSON.stringify([joins.family, joins.key(query)])
    const batch = batches.get(key) ?? { joins, members: [] }
    if (!batch.members.some((member) => member.resource === route.resource.name)) batch.members.push({ resource: route.resource.name, query })
    batches.set(key, batch)
  }
  return [...batches.values()]
    .filter((batch) => batch.members.length > 1)
    .map(({ joins, members }) => ({ label: `${members.length} resources of ${joins.family} asked together`, compiled: joins.compile(members) }))
}

function formatStatement({ compiled }: Statement): string {
  return [`-- template: ${compiled.template}`, `-- params: ${JSON.stringify(compiled.params, null, 2).replace(/\n/g, '\n-- ')}`, compiled.sql].join('\n')
}

/** The compiled statements of a request URL (path and query string) on an engine that `streams` or not, as text for review. */
export async function explainRequest(url: string, scopeFor: (projectId: string) => Scope, streams: boolean): Promise<string> {
  const resolved = await resolveRequest(url)
  if (!resolved) throw new QueryError('not_found', `No endpoint ${new URL(url, 'http://explain').pathname}`)
  const projectId = projectIdIn(resolved)
  if (!projectId) throw new QueryError('invalid_request', 'name the project (projectId)', [{ path: ['projectId'], message: '"projectId" is required' }])
  const statements = statementsOf(resolved.route, resolved.query, scopeFor(projectId), streams)
  if (isResourceRoute(resolved.route) && statements.length === 1) return formatStatement(statements[0])
  return statements.map((statement) => `-- statement: ${statement.label}\n${formatStatement(statement)}`).join('\n\n')
}
