// POST /insights/:projectId/batch: up to 20 questions of the project's insights routes in one request, under
// one authentication and one rate-limit token. Each question goes through the run stage's `answer` as its GET
// would, all at once (so they share settled checks and join statements as a burst does), each holding one of
// the client's query slots while it runs; each answers its own status and body.
import { EventEmitter, setMaxListeners } from 'node:events'
import express, { type Request, type RequestHandler, type Response } from 'express'
import { QueryError, invalid, type Issue } from '../../queries/core/errors'
import { compileSchema, schemaIssues } from '../../queries/core/validate'
import type { Answers, RunFacts } from '../../queries/run/answer'
import type { Logger } from '../logger'
import type { Route } from '../routes/routes'
import { authorizeProject } from './auth'
import type { ApiClient, Directory } from './directory'
import { errorAnswer } from './error-handler'
import { nextPageParams } from './next-page'
import type { PerClientSlots } from './limits'

export const BATCH_PATH = '/insights/:projectId/batch'
export const MAX_BATCH_REQUESTS = 20
/** The largest body a batch may send (express.json answers 413 past it). */
export const MAX_BATCH_BYTES = 64 * 1024
const INSIGHTS_PREFIX = '/insights/:projectId/'

/** The routes a batch may ask, by their path under `/insights/:projectId/`: the project's insights routes, never a stream. */
export function batchRoutes(routes: Route[]): Map<string, Route> {
  return new Map(
    routes
      .filter((route) => route.path.startsWith(INSIGHTS_PREFIX) && (route.projectFrom ?? 'path') === 'path' && !route.resource.stream)
      .map((route) => [route.path.slice(INSIGHTS_PREFIX.length), route]),
  )
}

/** The request body's JSON Schema, for validation and /openapi.json. */
export function batchRequestSchema(routeNames: string[]) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['requests'],
    properties: {
      requests: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_BATCH_REQUESTS,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'route'],
          properties: {
            id: { type: 'string', minLength: 1, maxLength: 100, description: 'Echoed in the result; unique in the batch' },
            route: { enum: routeNames, description: 'The path under /insights/{projectId}/ of the question' },
            params: {
              type: 'object',
              description: "The route's query parameters: text, or JSON values (filters, steps, goal) sent as their JSON text",
              additionalProperties: { type: ['string', 'number', 'boolean', 'array', 'object'] },
            },
          },
        },
      },
    },
  }
}

interface BatchQuestion {
  id: string
  route: string
  params?: Record<string, unknown>
}

export interface BatchResult {
  id: string
  status: number
  body: unknown
  /**
   * Another page follows: the parameters to change in the question's `params` to ask it, what its GET sends
   * in the `Link` header (a batch has one header for all its questions).
   */
  next?: Record<string, string>
}

/** The ids that repeat an earlier one, each as an issue. */
function repeatedIds(questions: BatchQuestion[]): Issue[] {
  const first = new Map<string, number>()
  const issues: Issue[] = []
  for (const [index, { id }] of questions.entries()) {
    const earlier = first.get(id)
    if (earlier === undefined) first.set(id, index)
    else issues.push({ path: ['requests', index, 'id'], message: `"requests.${index}.id" repeats the id "${id}" of requests.${earlier}` })
  }
  return issues
}

/** A question's parameters as its GET's query string would carry them: text as is, anything else as its JSON text. */
const queryOf = (params: Record<string, unknown> = {}): Record<string, unknown> =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]))

export interface BatchOptions {
  routes: Route[]
  answers: Answers
  directory: Directory
  /** The client's query slots, the same the concurrency cap of single requests takes. */
  slots: PerClientSlots
  maxConcurrentQueries: number
  sessionLookbackMs: number
  clock: () => Date
  logger: Logger
}

/** The batch route's handlers after authentication and the rate limit: project authorization, the body, the answers. */
export function batchHandlers(options: BatchOptions): RequestHandler[] {
  const routes = batchRoutes(options.routes)
  const validator = compileSchema(batchRequestSchema([...routes.keys()]), { coerce: false, keyNoun: 'field' })

  const authorize: RequestHandler = async (req, res, next) => {
    const project = await authorizeProject(options.directory, res.locals.client, String(req.params.projectId))
    res.locals.project = project
    res.locals.projectId = project.id
    next()
  }

  /** Every envelope problem at once: the body's shape, then repeated ids. */
  function envelopeOf(body: unknown): BatchQuestion[] {
    if (body === undefined) throw invalid([{ path: [], message: 'The body must be a JSON object with "requests"' }])
    const issues = schemaIssues(validator, body)
    const questions = (body as { requests?: unknown }).requests
    const listed = Array.isArray(questions) ? questions.filter((question) => typeof question?.id === 'string') : []
    issues.push(...repeatedIds(listed as BatchQuestion[]))
    if (issues.length) throw invalid(issues)
    return questions as BatchQuestion[]
  }

  function failed(id: string, rawError: unknown, requestId: string): BatchResult {
    const { status, body } = errorAnswer(rawError, requestId, (fields) =>
      options.logger.error('batch question failed', { requestId, id, ...fields }),
    )
    return { id, status, body }
  }

  async function answerOne(question: BatchQuestion, req: Request, res: Response, askedAt: number): Promise<BatchResult> {
    const client = res.locals.client as ApiClient
    const requestId = String(res.locals.requestId)
    // A question holds one of the client's query slots while it runs, as its GET would.
    const held = new EventEmitter()
    if (!options.slots.take(client.id, held))
      return failed(
        question.id,
        new QueryError('too_many_queries', `At most ${options.maxConcurrentQueries} queries at once per client`),
        requestId,
      )
    try {
      const route = routes.get(question.route) as Route
      const answered = await options.answers.answer(route.resource, {
        raw: queryOf(question.params),
        scope: { project: res.locals.project, now: options.clock(), sessionLookbackMs: options.sessionLookbackMs },
        clientId: client.id,
        signal: res.locals.signal,
        askedAt,
        revalidate: /\bno-(cache|store)\b/i.test(req.get('cache-control') ?? ''),
        report: (facts) => addFacts(res.locals, facts),
      })
      if (answered.kind !== 'body') throw new Error(`${route.path} answered a stream in a batch`)
      const next = nextPageParams(answered, question.params ?? {})
      return { id: question.id, status: 200, body: answered.body, ...(next ? { next } : {}) }
    } catch (error) {
      return failed(question.id, error, requestId)
    } finally {
      held.emit('close')
    }
  }

  const answerAll: RequestHandler = async (req, res) => {
    const askedAt = performance.now()
    const questions = envelopeOf(req.body)
    res.locals.questions = questions.length
    res.locals.template = 'batch'
    // Each question listens on the request's signal as its GET would on its own: the room of one request per question.
    setMaxListeners(10 * questions.length, res.locals.signal)
    const results = await Promise.all(questions.map((question) => answerOne(question, req, res, askedAt)))
    res.set('Cache-Control', 'no-store').json({ results })
  }

  return [authorize, express.json({ limit: MAX_BATCH_BYTES, type: () => true }), answerAll]
}

/** The batch's request-log facts: the statements' time, rows and bytes summed over its questions. */
function addFacts(locals: Record<string, unknown>, { queryMs, readRows, readBytes }: RunFacts): void {
  const add = (name: string, value?: number) => {
    if (value !== undefined) locals[name] = ((locals[name] as number | undefined) ?? 0) + value
  }
  add('queryMs', queryMs)
  add('readRows', readRows)
  add('readBytes', readBytes)
}
