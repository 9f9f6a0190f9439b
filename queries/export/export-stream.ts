// Runs an export of every matching row (NDJSON or CSV) as a sequence of keyset chunks, one statement
// each, handing the text to any writer (an HTTP response, a file); the next chunk is fetched while the
// current one is written.
import { compileCsvChunk, csvHeader, parseCsvChunk } from './export-csv'
import { compileProfiles, compileRows, keysetOf, type ExportQuery, type Keyset } from './export-events'
import type { StatementRunner } from '../core/run'

export type ExportRow = Record<string, unknown> & { id: string; createdAt: string; profileId: string }

/** Rows per statement while streaming: bounds memory on both engines (DESIGN 9). */
export const STREAM_CHUNK_ROWS = 20_000

/** Adds `profile` (or null) to each row when the export includes profiles. */
export async function attachProfiles(runner: StatementRunner, query: ExportQuery, rows: ExportRow[], signal: AbortSignal): Promise<void> {
  if (!query.includes.includes('profile')) return
  const ids = [...new Set(rows.map((row) => row.profileId).filter(Boolean))]
  const { rows: profiles } = ids.length ? await runner.run<Record<string, unknown> & { id: string }>(compileProfiles(query, ids), { signal }) : { rows: [] }
  const byId = new Map(profiles.map((profile) => [profile.id, profile]))
  for (const row of rows) row.profile = byId.get(row.profileId) ?? null
}

interface Chunk {
  count: number
  last?: Keyset
  text: string
}

function countLines(text: string): number {
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1
  return count
}

async function fetchCsvChunk(runner: StatementRunner, query: ExportQuery, after: Keyset | undefined, signal: AbortSignal): Promise<Chunk> {
  const { text } = await runner.runText(compileCsvChunk(query, { after, rows: STREAM_CHUNK_ROWS }), { signal })
  const chunk = parseCsvChunk(text)
  return { count: chunk.rows, last: chunk.rows ? { createdAtMs: chunk.lastAtMs, id: chunk.lastId, page: 1 } : undefined, text: chunk.rows ? chunk.text : '' }
}

/**
 * NDJSON without profiles passes the engine's JSONEachRow text through untouched and parses only its
 * last line; with profiles, the rows are decoded to attach them.
 */
async function fetchNdjsonChunk(runner: StatementRunner, query: ExportQuery, after: Keyset | undefined, signal: AbortSignal): Promise<Chunk> {
  const compiled = compileRows(query, { after, rows: STREAM_CHUNK_ROWS })
  if (!query.includes.includes('profile')) {
    const { text } = await runner.runText(compiled, { signal })
    const body = text.endsWith('\n') || !text ? text : `${text}\n`
    const count = countLines(body)
    const lastStart = body.lastIndexOf('\n', body.length - 2) + 1
    return { count, last: count ? keysetOf(JSON.parse(body.slice(lastStart)) as ExportRow, 1) : undefined, text: body }
  }
  const { rows } = await runner.run<ExportRow>(compiled, { signal })
  await attachProfiles(runner, query, rows, signal)
  const last = rows[rows.length - 1]
  return { count: rows.length, last: last ? keysetOf(last, 1) : undefined, text: rows.map((row) => `${JSON.stringify(row)}\n`).join('') }
}

export interface StreamOptions {
  runner: StatementRunner
  query: ExportQuery
  /** Writes a piece of the export; resolves once the writer can take more (backpressure). */
  write(text: string): Promise<void>
  signal: AbortSignal
  /** Called after each chunk with the rows written so far. */
  onProgress?(rows: number): void
}

/** Writes the whole export (the CSV header first) and returns the number of rows written. */
export async function streamExport({ runner, query, write, signal, onProgress }: StreamOptions): Promise<number> {
  const fetchChunk = query.format === 'csv' ? fetchCsvChunk : fetchNdjsonChunk
  if (query.format === 'csv') await write(csvHeader(query))
  let next = fetchChunk(runner, query, undefined, signal)
  let written = 0
  for (;;) {
    const chunk = await next
    const more = chunk.count >= STREAM_CHUNK_ROWS && chunk.last !== undefined
    if (more) {
      next = fetchChunk(runner, query, chunk.last, signal)
      // A write that fails (the client went away) leaves this chunk unread; it must not surface as unhandled.
      next.catch(() => undefined)
    }
    if (chunk.count) {
      await write(chunk.text)
      written += chunk.count
      onProgress?.(written)
    }
    if (!more || signal.aborted) return written
  }
}
