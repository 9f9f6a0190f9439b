// Serves a route of several statements (queries/core/pipeline.ts MultiResource): its answer as JSON, or
// its stream written chunk by chunk with backpressure, stopped when the client goes away. Everything
// else (statements, shaping, framing) is the resource's.
import { once } from 'node:events'
import type { Request, Response } from 'express'
import type { Scope } from '../../queries/core/pipeline'
import { answerMulti, streamMulti } from '../../queries/core/run-multi'
import type { Runner } from '../../queries/core/run'
import { authorizeProject, resolveQueryProject } from './auth'
import type { ApiClient, Directory } from './directory'
import type { Metrics } from './metrics'
import type { MultiRoute } from './routes'

export interface MultiContext {
  runner: Runner
  directory: Directory
  clock: () => Date
  sessionLookbackMs: number
  metrics?: Pick<Metrics, 'exportRows'>
}

export async function serveMulti(context: MultiContext & { route: MultiRoute }, req: Request, res: Response): Promise<void> {
  const { multi, projectFrom } = context.route
  const client = res.locals.client as ApiClient
  const project =
    projectFrom === 'path'
      ? await authorizeProject(context.directory, client, String(req.params.projectId))
      : await resolveQueryProject(context.directory, client, req.query as Record<string, unknown>)
  res.locals.projectId = project.id
  res.locals.template = multi.name
  const scope: Scope = { project, now: context.clock(), sessionLookbackMs: context.sessionLookbackMs }
  const query = multi.plan(multi.parse({ ...(req.query as Record<string, unknown>) }, scope))
  const run = { runner: context.runner.forClient(client.id), resource: multi, query, signal: res.locals.signal as AbortSignal }
  if (!multi.streams(query)) {
    res.json((await answerMulti(run, context.runner.requestDeadline())).body)
    return
  }
  const head = multi.head(query)
  res.status(200)
  res.set('Content-Type', head.contentType)
  res.set('Content-Disposition', `attachment; filename="${head.fileName}"`)
  // A client that goes away while the response is full ends the wait; the stream then stops on the signal.
  const write = async (piece: string | Uint8Array) => {
    if (!res.write(piece)) await once(res, 'drain', { signal: run.signal }).catch(() => undefined)
  }
  let counted = 0
  const onProgress = (rows: number) => {
    context.metrics?.exportRows(rows - counted)
    counted = rows
  }
  res.locals.readRows = await streamMulti({ ...run, write, onProgress })
  res.end()
}
