// `GET /export/events` as a pipeline resource: a JSON page runs its rows and its count together, then the
// profiles of its rows; a stream (ndjson, csv) runs as one statement where the engine streams, or one
// keyset chunk statement after another (with profiles, or on a server). Shaping, page meta, cursors and
// the CSV framing are here; the server only writes the bytes.
import { planSteps, type Chunk, type Resource, type RowSets, type StatementSet, type StreamPlan } from '../core/pipeline'
import { parseLines, type CompiledQuery } from '../core/compiled'
import type { Rows } from '../core/rows.generated'
import { compileCsvChunk, compileCsvLines, csvHeader, parseCsvChunk } from './export-csv'
import {
  compileCount,
  compileProfiles,
  compileRows,
  decideExportFilters,
  encodeCursor,
  exportEventsSchema,
  keysetOf,
  parseExport,
  type ExportQuery,
  type Keyset,
  type PlannedExport,
} from './export-events'

/** An event row: its base fields and the columns its `includes` add (sql/export/events.sql). */
export type ExportRow = Rows['export/events.sql']

/**
 * Rows per statement while streaming: bounds memory on both engines. Twice as many rows grew the gateway's
 * memory about twice as much at the same rows per second (docs/measurements.md, "Export").
 */
export const STREAM_CHUNK_ROWS = 10_000
/** A whole export read as one statement: every row (its LIMIT's largest value). */
const EVERY_ROW = 0xffff_ffff

const includesProfiles = (query: ExportQuery) => query.includes.includes('profile')

/** The page a JSON request asks for, and how many rows it skips (none after a cursor). */
function pageOf(query: ExportQuery): { current: number; offset: number } {
  const current = query.after ? query.after.page + 1 : (query.page ?? 1)
  return { current, offset: query.after ? 0 : (current - 1) * query.limit }
}

/** The profile look-up of some rows: their distinct profile ids, bound. */
function profilesOf(query: ExportQuery, rows: Record<string, unknown>[]): StatementSet {
  if (!includesProfiles(query)) return {}
  const ids = [...new Set(rows.map((row) => String(row.profileId ?? '')).filter(Boolean))]
  return { profiles: compileProfiles(query, ids) }
}

/** The rows, each with `profile` (or null) from the looked-up profiles. */
function withProfiles(rows: readonly ExportRow[], profiles: Record<string, unknown>[]): ExportRow[] {
  const byId = new Map(profiles.map((profile) => [String(profile.id), profile]))
  return rows.map((row) => ({ ...row, profile: byId.get(row.profileId) ?? null }))
}

function countLines(text: string): number {
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1
  return count
}

/** The position after a full chunk's last row; a chunk short of STREAM_CHUNK_ROWS ends the stream. */
const nextAfter = (count: number, last: Keyset | undefined): Keyset | undefined => (count >= STREAM_CHUNK_ROWS ? last : undefined)

/** A CSV chunk as the engine wrote it (export.events-csv). */
function csvChunk(output: string): Chunk<Keyset> {
  const chunk = parseCsvChunk(output)
  const last = chunk.rows ? { createdAtMs: chunk.lastAtMs, id: chunk.lastId, page: 1 } : undefined
  return { text: chunk.rows ? chunk.text : '', count: chunk.rows, next: nextAfter(chunk.rows, last) }
}

/**
 * An NDJSON chunk: without profiles, the engine's JSONEachRow text passes through untouched and only its
 * last line is parsed; with them, the rows are decoded to attach their profiles.
 */
function ndjsonChunk(output: string, follow: RowSets, query: ExportQuery): Chunk<Keyset> {
  if (!includesProfiles(query)) {
    const text = output.endsWith('\n') || !output ? output : `${output}\n`
    const count = countLines(text)
    const last = count ? keysetOf(JSON.parse(text.slice(text.lastIndexOf('\n', text.length - 2) + 1)) as ExportRow, 1) : undefined
    return { text, count, next: nextAfter(count, last) }
  }
  const rows = withProfiles(parseLines<ExportRow>(output), follow.profiles ?? [])
  const last = rows.at(-1)
  return {
    text: rows.map((row) => `${JSON.stringify(row)}\n`).join(''),
    count: rows.length,
    next: nextAfter(rows.length, last && keysetOf(last, 1)),
  }
}

/** How an export is streamed: as one statement where the engine streams one, or keyset chunk after chunk. */
export const exportStream: StreamPlan<PlannedExport, Keyset> = {
  streams: (query) => query.format !== 'json',
  head(query) {
    if (query.format === 'csv') return { contentType: 'text/csv; charset=utf-8', fileName: 'events.csv', text: csvHeader(query) }
    return { contentType: 'application/x-ndjson; charset=utf-8', fileName: 'events.ndjson', text: '' }
  },
  // The profiles of each chunk's rows are looked up per chunk; an export without them is one statement.
  compileStream(query) {
    if (includesProfiles(query)) return undefined
    if (query.format === 'csv') return compileCsvLines(query, EVERY_ROW)
    return compileRows(query, { rows: EVERY_ROW })
  },
  compileChunk(query, after): CompiledQuery {
    // The engine writes a CSV chunk whole, profiles included; an NDJSON chunk's profiles follow it.
    if (query.format === 'csv') return compileCsvChunk(query, { after, rows: STREAM_CHUNK_ROWS })
    return compileRows(query, { after, rows: STREAM_CHUNK_ROWS })
  },
  followChunk: (query, output) =>
    query.format === 'ndjson' && includesProfiles(query) ? profilesOf(query, parseLines<ExportRow>(output)) : {},
  shapeChunk: (output, follow, query) => (query.format === 'csv' ? csvChunk(output) : ndjsonChunk(output, follow, query)),
}

export const exportEvents: Resource<ExportQuery, PlannedExport, ExportRow> = {
  name: 'export.events',
  schema: exportEventsSchema,
  parse: parseExport,
  plan: planSteps(decideExportFilters),
  compile(query) {
    const { offset } = pageOf(query)
    // One more than the page, to know whether another follows.
    return compileRows(query, { after: query.after, offset, rows: query.limit + 1 })
  },
  alongside: (query) => ({ count: compileCount(query) }),
  follow: (query, rows) => profilesOf(query, (rows.rows ?? []).slice(0, query.limit)),
  shape(rows, query, others = {}) {
    const { current } = pageOf(query)
    const page = rows.slice(0, query.limit)
    const data = includesProfiles(query) ? withProfiles(page, others.profiles ?? []) : page
    const totalCount = Number(others.count?.[0]?.total ?? 0)
    const last = data.at(-1)
    const nextCursor = rows.length > query.limit && last ? encodeCursor(keysetOf(last, current)) : null
    return { body: { meta: { count: data.length, totalCount, pages: Math.ceil(totalCount / query.limit), current, nextCursor }, data } }
  },
  stream: exportStream,
}
