// `npm run cli -- export`: writes a project's events to a file through the same resource and stream as
// the HTTP export (queries/export/export-resource.ts), so the file holds exactly the bytes `/export/events` sends.
import { once } from 'node:events'
import fs from 'node:fs'
import { QueryError } from '../../queries/core/errors'
import { writeStream } from '../../queries/run/streams'
import { compileCount } from '../../queries/export/export-events'
import { exportEvents, exportStream } from '../../queries/export/export-resource'
import type { Config } from '../config'
import { ControlError, findProject } from './control'
import { createRunner, type Engine } from '../engine'

export interface ExportFileOptions {
  projectId: string
  format: string
  start?: string
  end?: string
  /** As `/export/events` takes them: include groups and event names comma-separated, filters as JSON. */
  includes?: string
  event?: string
  filters?: string
  out: string
  /** Called once before the first rows with the number of rows the export will write. */
  onTotal?(rows: number): void
  /** Called after each block or chunk with the rows written so far (for a progress display). */
  onProgress?(rows: number): void
}

/** Writes the export to `<out>.partial`, then renames it to `out`; returns the number of rows. */
export async function exportToFile(engine: Engine, config: Config, options: ExportFileOptions): Promise<number> {
  const project = await findProject(engine, options.projectId)
  if (!project) throw new ControlError(`no project "${options.projectId}"`)
  if (options.format !== 'ndjson' && options.format !== 'csv')
    throw new ControlError(`--format must be ndjson or csv, got "${options.format}"`)
  const given = { start: options.start, end: options.end, includes: options.includes, event: options.event, filters: options.filters }
  const raw = {
    projectId: project.id,
    format: options.format,
    ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)),
  }
  let query: ReturnType<typeof exportEvents.plan>
  try {
    query = exportEvents.plan(exportEvents.parse(raw, { project, now: new Date(), sessionLookbackMs: 0 }))
  } catch (error) {
    if (!(error instanceof QueryError)) throw error
    throw new ControlError(error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('; '))
  }
  const partial = `${options.out}.partial`
  const file = fs.createWriteStream(partial)
  try {
    const write = async (piece: string | Uint8Array) => {
      if (!file.write(piece)) await once(file, 'drain')
    }
    const runner = createRunner(engine, config)
    if (options.onTotal) {
      const { rows: counted } = await runner.run<{ total: number }>(compileCount(query))
      options.onTotal(Number(counted[0]?.total ?? 0))
    }
    const rows = await writeStream({
      runner,
      plan: exportStream,
      query,
      write,
      signal: new AbortController().signal,
      onProgress: options.onProgress,
    })
    file.end()
    await once(file, 'finish')
    fs.renameSync(partial, options.out)
    return rows
  } catch (error) {
    file.destroy()
    fs.rmSync(partial, { force: true })
    throw error
  }
}
