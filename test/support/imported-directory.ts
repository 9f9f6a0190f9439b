// A freshly imported data directory, built as an operator builds one with the CLI: projects created, then
// each project's events imported in parts (`import` compacts after each). For the start tests and the
// start loop (bench/start-loop.ts), which start the gateway on it right after.
import fs from 'node:fs'
import path from 'node:path'
import { randomEvents } from './random-events'
import { runCliIn } from './cli'

export interface ImportedDirectoryOptions {
  projects: number
  parts: number
  /** Sessions of each part (each of 1 to 8 events). */
  sessionsPerPart: number
  /** Seeds the events: the same seed builds the same events. */
  seed: number
  /** The first day of the events, which spread over `days` days from it: each import compacts each of them. */
  from: Date
  days: number
}

/** The CLI's exit code, or a failure with what it printed. */
async function cli(dir: string, argv: string[]): Promise<void> {
  const outcome = await runCliIn(dir, argv)
  if (outcome.code !== 0) throw new Error(`quarry ${argv.join(' ')} exited ${outcome.code}:\n${outcome.out}${outcome.err}`)
}

/** Builds the directory `dir` (created if missing); returns how many events it imported. */
export async function buildImportedDirectory(dir: string, options: ImportedDirectoryOptions): Promise<number> {
  fs.mkdirSync(dir, { recursive: true })
  const files = fs.mkdtempSync(path.join(dir, '..', `${path.basename(dir)}-ndjson-`))
  let imported = 0
  try {
    for (let p = 0; p < options.projects; p += 1) {
      const projectId = `project-${p}`
      await cli(dir, ['project', 'create', projectId])
      for (let part = 0; part < options.parts; part += 1) {
        const events = randomEvents(options.seed * 1000 + p * 100 + part, {
          sessions: options.sessionsPerPart,
          from: options.from,
          days: options.days,
        })
        const file = path.join(files, `${projectId}-${part}.ndjson`)
        fs.writeFileSync(file, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`)
        await cli(dir, ['import', '--project', projectId, '--file', file])
        imported += events.length
      }
    }
  } finally {
    fs.rmSync(files, { recursive: true, force: true })
  }
  return imported
}
