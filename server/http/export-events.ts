// `GET /export/events`: JSON pages (keyset cursor or offset page) or a stream of every matching row
// (ndjson, csv) as a sequence of keyset chunks, written with backpressure and stopped when the client
// goes away.
import { once } from 'node:events'
import type { Request, Response } from 'express'
import { compileCount, compileRows, encodeCursor, keysetOf, parseExport, type ExportQuery } from '../../queries/export/export-events'
import { attachProfiles, streamExport, type ExportRow } from '../../queries/export/export-stream'
import type { StatementRunner } from '../../queries/core/run'
import { runTogether } from '../../queries/core/run-together'
import { resolveQueryProject } from './auth'
import type { ApiClient } from './directory'
import type { ServeContext } from './serve-context'

export async function serveExportEvents({ runner: shared, directory, clock, metrics }: ServeContext, req: Request, res: Response): Promise<void> {
  const query = req.query as Record<string, unknown>
  const client = res.locals.client as ApiClient
  const project = await resolveQueryProject(directory, client, query)
  const runner = shared.forClient(client.id)
  res.locals.projectId = project.id
  const parsed = parseExport(query, { project, now: clock(), sessionLookbackMs: 0 })
  const signal = res.locals.signal as AbortSignal
  res.locals.template = 'export.events'
  if (parsed.format === 'json') return servePage(runner, parsed, res, signal)
  return serveStream({ runner, query: parsed, res, signal, exportRows: metrics?.exportRows })
}

async function servePage(runner: StatementRunner, query: ExportQuery, res: Response, signal: AbortSignal) {
  const current = query.after ? query.after.page + 1 : (query.page ?? 1)
  const offset = query.after ? 0 : (current - 1) * query.limit
  const [{ rows }, { rows: counted }] = await runTogether(signal, [
    (shared: AbortSignal) => runner.run<ExportRow>(compileRows(query, { after: query.after, offset, rows: query.limit + 1 }), { signal: shared }),
    (shared: AbortSignal) => runner.run<{ total: number }>(compileCount(query), { signal: shared }),
  ])
  const data = rows.slice(0, query.limit)
  await attachProfiles(runner, query, data, signal)
  const totalCount = Number(counted[0]?.total ?? 0)
  const last = data[data.length - 1]
  const nextCursor = rows.length > query.limit && last ? encodeCursor(keysetOf(last, current)) : null
  res.json({ meta: { count: data.length, totalCount, pages: Math.ceil(totalCount / query.limit), current, nextCursor }, data })
}

interface StreamTarget {
  runner: StatementRunner
  query: ExportQuery
  res: Response
  signal: AbortSignal
  /** Counts the rows written (Prometheus), chunk by chunk. */
  exportRows?: (count: number) => void
}

async function serveStream({ runner, query, res, signal, exportRows }: StreamTarget) {
  const csv = query.format === 'csv'
  res.status(200)
  res.set('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
  res.set('Content-Disposition', `attachment; filename="events.${csv ? 'csv' : 'ndjson'}"`)
  // A client that goes away while the response is full ends the wait; the stream then stops on the signal.
  const write = async (text: string) => {
    if (!res.write(text)) await once(res, 'drain', { signal }).catch(() => undefined)
  }
  let counted = 0
  const onProgress = (rows: number) => {
    exportRows?.(rows - counted)
    counted = rows
  }
  res.locals.readRows = await streamExport({ runner, query, write, signal, onProgress })
  res.end()
}
