// `seed`: deterministic demo data generated inside ClickHouse by the reviewed SQL in sql/seed/.
import { compileTemplate, type Params } from '../queries/compiled'
import { toClickHouseTime } from '../queries/pipeline'
import { loadTemplate } from '../queries/templates'
import type { Engine } from './engine'
import { ControlError, findProject } from './control'

export interface SeedOptions {
  projectId: string
  events: number
  days: number
  seed: number
  end: Date
}

const SEED_TEMPLATES = ['seed/events.sql', 'seed/profiles.sql']

export async function seedProject(engine: Engine, options: SeedOptions): Promise<{ seconds: number }> {
  const problems: string[] = []
  if (!Number.isSafeInteger(options.events) || options.events < 1) problems.push('--events must be a whole number >= 1')
  if (!Number.isSafeInteger(options.days) || options.days < 1 || options.days > 3650) problems.push('--days must be a whole number from 1 to 3650')
  if (!Number.isSafeInteger(options.seed) || options.seed < 0) problems.push('--seed must be a whole number >= 0')
  if (Number.isNaN(options.end.getTime())) problems.push('--end must be an ISO date-time')
  if (problems.length) throw new ControlError(problems.join('; '))
  if (!(await findProject(engine, options.projectId))) throw new ControlError(`no project "${options.projectId}"`)
  const values: Params = {
    projectId: options.projectId,
    events: options.events,
    days: options.days,
    seed: options.seed,
    end: toClickHouseTime(options.end),
  }
  const started = performance.now()
  for (const file of SEED_TEMPLATES) {
    const wanted = loadTemplate(file).placeholders
    const params = Object.fromEntries(Object.entries(values).filter(([key]) => wanted.has(key)))
    const compiled = compileTemplate(file, params)
    await engine.client.command({ query: compiled.sql, query_params: compiled.params })
  }
  return { seconds: (performance.now() - started) / 1000 }
}
