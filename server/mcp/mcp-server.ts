// An MCP server for one authenticated request: the tools its client may call, each call answered as the REST
// route it mirrors answers — one rate-limit token and one query slot per call, the client's projects only, the
// route's resource through the run stage's `answer` (caps, scheduler, result cache) — and its JSON as text.
// Any refusal is a tool result with `isError` and the route's error body, never a failed session.
import { EventEmitter } from 'node:events'
import type { Request, RequestHandler, Response } from 'express'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { QueryError, invalid } from '../../queries/core/errors'
import type { Project } from '../../queries/core/pipeline'
import type { Answers } from '../../queries/run/answer'
import { compileSchema, schemaIssues, type Validator } from '../../queries/core/validate'
import type { ClientType } from '../client-types'
import type { Route } from '../routes/routes'
import { TOOLS, type ToolSpec } from './tools'

/** The authenticated client of a request, as the HTTP app's authentication leaves it in `res.locals.client`. */
interface CallingClient {
  id: string
  name: string
  type: ClientType
  /** A read client's one project. */
  projectId: string
}

/** A tool the routes table can answer: its spec, its route, its arguments' validators (by client type). */
export interface OfferedTool {
  spec: ToolSpec
  route: Route
  schemas: { root: object; read: object }
  validators: { root: Validator<unknown>; read: Validator<unknown> }
}

/** A tool's input schema: its arguments and `projectId`, which a root client must give (a read client has one project). */
function inputSchema(spec: ToolSpec, projectRequired: boolean) {
  const projectId = {
    type: 'string',
    description: projectRequired ? 'Project ID to query (required for a root client)' : "Project ID to query (the client's own by default)",
  }
  const required = [...(projectRequired ? ['projectId'] : []), ...(spec.required ?? [])]
  return {
    type: 'object',
    additionalProperties: false,
    properties: { projectId, ...spec.inputs },
    ...(required.length ? { required } : {}),
  }
}

/** The tools of `TOOLS` whose route `routes` has, looked up by path; the others wait for their route. */
export function offeredTools(routes: Route[], tools: readonly ToolSpec[] = TOOLS): OfferedTool[] {
  const byPath = new Map(routes.map((route) => [route.path, route]))
  return tools.flatMap((spec) => {
    const route = byPath.get(spec.route)
    if (!route) return []
    const schemas = { root: inputSchema(spec, true), read: inputSchema(spec, false) }
    const validators = {
      root: compileSchema(schemas.root, { coerce: false, keyNoun: 'argument' }),
      read: compileSchema(schemas.read, { coerce: false, keyNoun: 'argument' }),
    }
    return [{ spec, route, schemas, validators }]
  })
}

/**
 * What a call needs from the HTTP app, handed in by it (server/http/app.ts) so that this wing imports none of it:
 * the REST routes' rate limiter, query slots, project authorization and error bodies.
 */
export interface McpServerOptions {
  tools: OfferedTool[]
  answers: Answers
  /** The REST routes' rate limiter: each tool call takes one token from the same count. */
  rateLimiter: RequestHandler
  /** The client's query slots, the same the REST routes' concurrency cap takes: false when all are held. */
  takeSlot(clientId: string, holder: EventEmitter): boolean
  maxConcurrentQueries: number
  /** The project a call may read, as a route with its project in the query resolves it (`projectId`, or a read client's own). */
  authorizeProject(client: CallingClient, query: Record<string, unknown>): Promise<Project>
  /** The error body a route answers for `error` (a 5xx logged, never detailed). */
  errorBody(error: unknown, context: { requestId: string; tool: string }): unknown
  sessionLookbackMs: number
  clock: () => Date
}

/** Takes one rate-limit token for `req`'s client: the limiter's refusal (a QueryError), or nothing. */
function takeToken(limiter: RequestHandler, req: Request, res: Response): Promise<unknown> {
  return new Promise((resolve) => {
    limiter(req, res, (error?: unknown) => resolve(error))
  })
}

const toText = (value: unknown): CallToolResult['content'] => [{ type: 'text', text: JSON.stringify(value) }]

/** The MCP server answering `req` (after authentication): tools/list and tools/call for its client. */
export function createMcpServer(options: McpServerOptions, req: Request, res: Response): Server {
  const client = res.locals.client as CallingClient
  const kind = client.type === 'root' ? 'root' : 'read'
  const tools = new Map(options.tools.map((tool) => [tool.spec.name, tool]))
  // Low-level `Server` rather than `McpServer`: the tools' inputs are JSON Schemas checked by the gateway's own
  // validator, so a bad argument is the same 400 body a route answers, not the SDK's zod message.
  const server = new Server({ name: 'quarry', version: '1.0.0' }, { capabilities: { tools: {} } })

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: options.tools.map(
      ({ spec, schemas }): Tool => ({
        name: spec.name,
        description: `${spec.description} (mirrors GET ${spec.route})`,
        inputSchema: schemas[kind] as Tool['inputSchema'],
        annotations: { readOnlyHint: true, openWorldHint: false },
      }),
    ),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool "${request.params.name}"`)
    const requestId = String(res.locals.requestId)
    const held = new EventEmitter()
    try {
      return await callTool(tool, request.params.arguments ?? {}, AbortSignal.any([res.locals.signal, extra.signal]), held)
    } catch (error) {
      return { content: toText(options.errorBody(error, { requestId, tool: tool.spec.name })), isError: true }
    } finally {
      held.emit('close')
    }
  })

  /** One call as its route's GET: token, slot, project, arguments, then the route's resource. */
  async function callTool(tool: OfferedTool, args: Record<string, unknown>, signal: AbortSignal, held: EventEmitter) {
    const askedAt = performance.now()
    const refused = await takeToken(options.rateLimiter, req, res)
    if (refused) throw refused
    if (!options.takeSlot(client.id, held))
      throw new QueryError('too_many_queries', `At most ${options.maxConcurrentQueries} queries at once per client`)
    const project = await options.authorizeProject(client, args.projectId === undefined ? {} : { projectId: args.projectId })
    res.locals.projectId = project.id
    const issues = schemaIssues(tool.validators[kind], args)
    if (issues.length) throw invalid(issues)
    const { projectId: _project, ...own } = args
    const params = tool.spec.params(own)
    const answered = await options.answers.answer(tool.route.resource, {
      raw: tool.route.projectFrom === 'query' ? { ...params, projectId: project.id } : params,
      scope: { project, now: options.clock(), sessionLookbackMs: options.sessionLookbackMs },
      clientId: client.id,
      signal,
      askedAt,
      revalidate: false,
      report: (facts) => Object.assign(res.locals, facts),
    })
    if (answered.kind !== 'body') throw new Error(`${tool.route.path} answered a stream to an MCP tool`)
    return { content: toText(answered.body) }
  }

  return server
}
