// Serves a route of several statements (queries/core/pipeline.ts MultiResource): its answer as JSON, or
// its stream written chunk by chunk with backpressure, stopped when the client goes away or takes no bytes
// for the idle time, a bounded number per client. Everything else (statements, shaping, framing) is the
// resource's.
import { once } from 'node:events'
import type { Request, Response } from 'express'
import { QueryError } from '../../queries/core/errors'
import type { Scope } from '../../queries/core/pipeline'
import { answerMulti, streamMulti } from '../../queries/run/run-multi'
import type { Runner } from '../../queries/run/runner'
import { authorizeProject, resolveQueryProject } from './auth'
import type { ApiClient, Directory } from './directory'
import type { PerClientSlots } from './limits'
import type { Metrics } from './metrics'
import type { MultiRoute } from './routes'

export interface MultiContext {
  runner: Runner
  directory: Directory
  clock: () => Date
  sessionLookbackMs: number
  metrics?: Pick<Metrics, 'exportRows'>
  /** A stream whose client takes none of its bytes for this long is cut. */
  streamIdleMs: number
  /** The export streams each client has open, capped. */
  streams: PerClientSlots
  maxStreamsPerClient: number
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
  if (!context.streams.take(client.id, res)) {
    throw new QueryError('too_many_queries', `At most ${context.maxStreamsPerClient} export streams at once per client`)
  }
  const head = multi.head(query)
  res.status(200)
  res.set('Content-Type', head.contentType)
  res.set('Content-Disposition', `attachment; filename="${head.fileName}"`)
  // A client that goes away while the response is full ends the wait; the stream then stops on the signal.
  // One that stays but takes nothing for the idle time is cut, which aborts the signal the same way: it
  // would otherwise hold a stream session (and its turn between blocks) for as long as it likes.
  const write = async (piece: string | Uint8Array) => {
    if (res.write(piece)) return
    const idle = AbortSignal.timeout(context.streamIdleMs)
    await once(res, 'drain', { signal: AbortSignal.any([run.signal, idle]) }).catch(() => {
      if (idle.aborted) res.destroy()
    })
  }
  let counted = 0
  const onProgress = (rows: number) => {
    context.metrics?.exportRows(rows - counted)
    counted = rows
  }
  res.locals.readRows = await streamMulti({ ...run, write, onProgress })
  res.end()
}
