// `GET /export/events`: JSON pages (keyset cursor or offset page) or a stream of every matching row
// (ndjson, csv) as a sequence of keyset chunks, written with backpressure and stopped when the client
// goes away.
import { once } from 'node:events'
import type { Request, Response } from 'express'
import {
  INCLUDES,
  compileCount,
  compileProfiles,
  compileRows,
  encodeCursor,
  keysetOf,
  parseExport,
  type ExportQuery,
  type Keyset,
} from '../queries/export-events'
import type { Runner } from '../queries/run'
import { resolveQueryProject } from './auth'
import type { ApiClient } from './directory'
import type { ServeContext } from './routes'

type Row = Record<string, unknown> & { id: string; createdAt: string; profileId: string }

/** Rows per statement while streaming: bounds memory on both engines (DESIGN 9). */
export const STREAM_CHUNK_ROWS = 20_000

const BASE_COLUMNS = ['id', 'name', 'deviceId', 'profileId', 'sessionId', 'projectId', 'createdAt', 'path', 'duration', 'city', 'country', 'os', 'browser']

async function attachProfiles(runner: Runner, query: ExportQuery, rows: Row[], signal: AbortSignal): Promise<void> {
  if (!query.includes.includes('profile')) return
  const ids = [...new Set(rows.map((row) => row.profileId).filter(Boolean))]
  const { rows: profiles } = ids.length ? await runner.run<Record<string, unknown> & { id: string }>(compileProfiles(query, ids), { signal }) : { rows: [] }
  const byId = new Map(profiles.map((profile) => [profile.id, profile]))
  for (const row of rows) row.profile = byId.get(row.profileId) ?? null
}

function columnsOf(query: ExportQuery): string[] {
  const included = query.includes.flatMap((name) => (name === 'profile' ? ['profile'] : INCLUDES[name].map((column) => column.split(' AS ').pop() as string)))
  return [...BASE_COLUMNS, ...included]
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

async function writeWithBackpressure(res: Response, text: string): Promise<void> {
  if (!res.write(text)) await once(res, 'drain')
}

export async function serveExportEvents(context: ServeContext, req: Request, res: Response): Promise<void> {
  const { runner, directory, clock } = context
  const query = req.query as Record<string, unknown>
  const project = await resolveQueryProject(directory, res.locals.client as ApiClient, query)
  res.locals.projectId = project.id
  const parsed = parseExport(query, { project, now: clock(), sessionLookbackMs: 0 })
  const signal = res.locals.signal as AbortSignal
  res.locals.template = 'export.events'
  if (parsed.format === 'json') return servePage(runner, parsed, res, signal)
  return serveStream(context, parsed, res, signal)
}

async function servePage(runner: Runner, query: ExportQuery, res: Response, signal: AbortSignal) {
  const current = query.after ? query.after.page + 1 : (query.page ?? 1)
  const offset = query.after ? 0 : (current - 1) * query.limit
  const [{ rows }, { rows: counted }] = await Promise.all([
    runner.run<Row>(compileRows(query, { after: query.after, offset, rows: query.limit + 1 }), { signal }),
    runner.run<{ total: number }>(compileCount(query), { signal }),
  ])
  const data = rows.slice(0, query.limit)
  await attachProfiles(runner, query, data, signal)
  const totalCount = Number(counted[0]?.total ?? 0)
  const last = data[data.length - 1]
  const nextCursor = rows.length > query.limit && last ? encodeCursor(keysetOf(last, current)) : null
  res.json({ meta: { count: data.length, totalCount, pages: Math.ceil(totalCount / query.limit), current, nextCursor }, data })
}

function formatRows(rows: Row[], query: ExportQuery, columns: string[]): string {
  if (query.format === 'csv') return rows.map((row) => columns.map((column) => csvField(row[column])).join(',')).join('\r\n') + '\r\n'
  return rows.map((row) => JSON.stringify(row)).join('\n') + '\n'
}

/**
 * One keyset chunk as the text to write, with its row count and last row (the next keyset). NDJSON
 * without profiles passes the engine's JSONEachRow text through untouched and parses only its last
 * line, which is what makes streaming fast.
 */
async function fetchChunk(runner: Runner, query: ExportQuery, columns: string[], after: Keyset | undefined, signal: AbortSignal) {
  const compiled = compileRows(query, { after, rows: STREAM_CHUNK_ROWS })
  if (query.format === 'ndjson' && !query.includes.includes('profile')) {
    const { text } = await runner.runText(compiled, { signal })
    const body = text.endsWith('\n') || !text ? text : `${text}\n`
    const lastStart = body.lastIndexOf('\n', body.length - 2) + 1
    const count = body ? body.split('\n').length - 1 : 0
    return { count, last: count ? (JSON.parse(body.slice(lastStart)) as Row) : undefined, text: body }
  }
  const { rows } = await runner.run<Row>(compiled, { signal })
  await attachProfiles(runner, query, rows, signal)
  return { count: rows.length, last: rows[rows.length - 1], text: rows.length ? formatRows(rows, query, columns) : '' }
}

async function serveStream({ runner, metrics }: ServeContext, query: ExportQuery, res: Response, signal: AbortSignal) {
  const csv = query.format === 'csv'
  const columns = columnsOf(query)
  res.status(200)
  res.set('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
  res.set('Content-Disposition', `attachment; filename="events.${csv ? 'csv' : 'ndjson'}"`)
  if (csv) await writeWithBackpressure(res, `${columns.join(',')}\r\n`)
  let after: Keyset | undefined
  let written = 0
  for (;;) {
    if (signal.aborted) return
    const { count, last, text } = await fetchChunk(runner, query, columns, after, signal)
    if (count) {
      await writeWithBackpressure(res, text)
      written += count
      metrics?.exportRows(count)
    }
    if (count < STREAM_CHUNK_ROWS || !last) break
    after = keysetOf(last, 1)
  }
  res.locals.readRows = written
  res.end()
}
