// `seed`: deterministic demo data generated inside ClickHouse by the reviewed SQL in sql/seed/, in
// batches of rows so that a long seed can report its progress.
import { compileTemplate, type Params } from '../../queries/core/compiled'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { loadTemplate } from '../../queries/core/templates'
import type { Engine } from '../engine'
import { ControlError, findProject } from './control'

/** A batch starts at a multiple of the generator's block size (sql/seed/events.sql), so no session is split. */
export const SEED_BLOCK_ROWS = 65_536
const DEFAULT_BATCH_ROWS = 4 * SEED_BLOCK_ROWS

export interface SeedOptions {
  projectId: string
  events: number
  days: number
  seed: number
  end: Date
  /** Rows per INSERT statement, a multiple of SEED_BLOCK_ROWS; the rows written do not depend on it. */
  batchRows?: number
  /** Called with the number of events written so far, after each batch. */
  onProgress?: (rows: number) => void
}

function seedProblems(options: SeedOptions): string[] {
  const problems: string[] = []
  if (!Number.isSafeInteger(options.events) || options.events < 1) problems.push('--events must be a whole number >= 1')
  if (!Number.isSafeInteger(options.days) || options.days < 1 || options.days > 3650)
    problems.push('--days must be a whole number from 1 to 3650')
  if (!Number.isSafeInteger(options.seed) || options.seed < 0) problems.push('--seed must be a whole number >= 0')
  if (Number.isNaN(options.end.getTime())) problems.push('--end must be an ISO date-time')
  const batch = options.batchRows ?? DEFAULT_BATCH_ROWS
  if (!Number.isSafeInteger(batch) || batch < SEED_BLOCK_ROWS || batch % SEED_BLOCK_ROWS !== 0)
    problems.push(`batch size must be a multiple of ${SEED_BLOCK_ROWS}`)
  return problems
}

async function runTemplate(engine: Engine, file: string, values: Params): Promise<void> {
  const wanted = loadTemplate(file).placeholders
  const compiled = compileTemplate(file, Object.fromEntries(Object.entries(values).filter(([key]) => wanted.has(key))))
  await engine.admin.command(compiled)
}

export async function seedProject(engine: Engine, options: SeedOptions): Promise<{ seconds: number }> {
  const problems = seedProblems(options)
  if (problems.length) throw new ControlError(problems.join('; '))
  if (!(await findProject(engine, options.projectId))) throw new ControlError(`no project "${options.projectId}"`)
  const values: Params = {
    projectId: options.projectId,
    events: options.events,
    days: options.days,
    seed: options.seed,
    end: toClickHouseTime(options.end),
  }
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS
  const started = performance.now()
  options.onProgress?.(0)
  for (let first = 0; first < options.events; first += batchRows) {
    const count = Math.min(batchRows, options.events - first)
    await runTemplate(engine, 'seed/events.sql', { ...values, first, count })
    options.onProgress?.(first + count)
  }
  await runTemplate(engine, 'seed/profiles.sql', values)
  await runTemplate(engine, 'seed/groups.sql', values)
  return { seconds: (performance.now() - started) / 1000 }
}
