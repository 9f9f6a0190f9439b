// `npm run cli -- <command>`: projects, API clients, NDJSON import, export, seeding and migrations.
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { QueryError } from '../../queries/core/errors'
import { ConfigError, loadConfig, type Config } from '../config'
import {
  ControlError,
  createApiClient,
  createProject,
  findProject,
  listApiClients,
  listProjects,
  revokeApiClient,
  type ClientListing,
  type ProjectRow,
} from './control'
import { otherOwnerOf } from './data-dir-owner'
import { EngineBusyError, createRunner, openEngine, type Engine } from '../engine'
import type { CompiledQuery } from '../../queries/core/compiled'
import type { SettledRow } from '../../queries/core/pipeline'
import { explainRequest, explainTarget } from './explain'
import { CATALOGUE_DIR, compileCatalogue, writeCatalogue } from './catalogue'
import { exportToFile } from './export-file'
import { countLines, importEvents } from './importer'
import { exportPeople, importPeople, type PeopleKind } from './people-files'
import { SchemaBehindError, migrate, prepareSchema } from './migrate'
import { compactionOptions, compactSessions } from './compact'
import { createProgress } from './progress'
import { seedProject } from './seed'

const USAGE = `Usage: npm run cli -- <command>   (details: docs/cli.md)
  help   (this list)
  project create <id> [--name NAME] [--timezone IANA]   (default timezone UTC)
  project list
  client create --type read|write|root [--project ID] [--name NAME]   (prints the secret once)
  client list [--project ID]
  client revoke <client-id>
  import --project ID --file events.ndjson [--from-project ID] [--skip-bad]
      (NDJSON with snake_case keys, or what export writes; --from-project: the project a file exported elsewhere names)
  import --project ID --profiles FILE | --groups FILE [--from-project ID] [--skip-bad]
      (NDJSON in the columns of the profiles or groups table, snake_case; a rerun writes nothing again)
  export --project ID --profiles FILE | --groups FILE
      (each profile or group as its newest version, in the columns import --profiles / --groups takes)
  export --project ID --out FILE [--format ndjson|csv] [--start DATE] [--end DATE]
         [--includes LIST] [--event NAMES] [--filters JSON]
      (as GET /export/events; default ndjson. Every event field, for import:
       --includes properties,geo,device,referrer,meta,page,revenue,groups)
  seed --project ID [--events N] [--days D] [--seed S] [--end ISO-DATETIME]
  explain '<path?query>' [--timezone IANA] [--now ISO-DATETIME]
      (prints SQL + params; runs only a session question's settled check. With --timezone it runs
       without the engine, e.g. while a gateway holds the data directory)
  explain --catalogue [--out DIR]   (writes every route's SQL for fixed example requests to docs/sql/)
  compact   (combines the sessions of settled days; seed and import run it too)
  migrate
JSON output uses camelCase keys, as the API's export does.`

class UsageError extends Error {}

/** The profiles or groups file an import or export names (`--profiles FILE`, `--groups FILE`), if any: at most one of them and `--file`. */
function peopleFile(options: Options): { kind: PeopleKind; file: string } | undefined {
  const named = (['file', 'profiles', 'groups'] as const).filter((name) => typeof options[name] === 'string')
  if (named.length > 1) throw new UsageError(`name one of ${named.map((name) => `--${name}`).join(', ')}`)
  const kind = named.find((name): name is PeopleKind => name !== 'file')
  return kind && { kind, file: need(options, kind) }
}

async function importPeopleFile(engine: Engine, options: Options, { kind, file }: { kind: PeopleKind; file: string }) {
  const skipBad = options['skip-bad'] === true
  const report = await importPeople(engine, {
    kind,
    projectId: need(options, 'project'),
    file,
    skipBad,
    fromProject: options['from-project'] as string | undefined,
  })
  for (const bad of report.bad) console.error(`line ${bad.line}: ${bad.problems.join('; ')}`)
  const unlisted = report.badLines - report.bad.length
  if (unlisted > 0) console.error(`and ${unlisted} more bad line(s), not listed`)
  if (report.badLines && !skipBad)
    throw new ControlError(`${report.badLines} bad line(s); nothing was imported (use --skip-bad to import the good lines)`)
  print(
    `imported ${report.imported} ${kind} version(s), skipped ${report.skipped} bad line(s), ${report.duplicates} already imported (not written again)`,
  )
}

type Options = Record<string, string | boolean | undefined>

function need(options: Options, name: string): string {
  const value = options[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

function wholeNumber(options: Options, name: string, fallback: number): number {
  const value = options[name]
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`)
  return Number(value)
}

const print = (value: unknown) => console.log(typeof value === 'string' ? value : JSON.stringify(value, null, 2))

/** A project as the CLI prints it (camelCase, as every JSON it prints). */
const projectOut = (row: ProjectRow) => ({ id: row.id, name: row.name, timezone: row.timezone, createdAt: row.created_at })
/** A client as the CLI prints it: the keys `client create` answers with, never the secret's hash. */
const clientOut = (row: ClientListing) => ({
  id: row.id,
  name: row.name,
  type: row.type,
  projectId: row.project_id,
  createdAt: row.created_at,
  revoked: Boolean(Number(row.revoked)),
})

/** The engine of the CLI; an embedded directory another process holds is refused before the engine tries it. */
async function openCliEngine(config: Config): Promise<Engine> {
  const { engine: settings } = config
  if (settings.mode === 'embedded' && otherOwnerOf(settings.dataDir) !== undefined) throw new EngineBusyError(settings.dataDir)
  return openEngine(settings)
}

type Command = (engine: Engine, positionals: string[], options: Options) => Promise<void>

/** Compacts the settled days that changed, and says what it did. */
async function compactNow(engine: Engine): Promise<string> {
  const report = await compactSessions(engine, { ...compactionOptions(loadConfig()), now: new Date() })
  if (report.leaseHeldBy)
    return `compacted nothing: compaction ${report.leaseHeldBy} (another process on this database) is running; it compacts the same days`
  return `compacted ${report.sessions} session(s) of ${report.days} settled day(s), dropped ${report.dropped} replaced compaction(s), rewriting ${report.rewritten} month(s) without them${report.deferred ? ` (${report.deferred} table(s) keep theirs until the next run: a mutation of theirs is still running)` : ''}, in ${report.seconds.toFixed(1)} s`
}

const COMMANDS: Record<string, Command> = {
  'project create': async (engine, [id], options) => {
    if (!id) throw new UsageError('project create needs an id')
    print(
      projectOut(
        await createProject(engine, { id, name: options.name as string | undefined, timezone: options.timezone as string | undefined }),
      ),
    )
  },
  'project list': async (engine) => print((await listProjects(engine)).map(projectOut)),
  'client create': async (engine, _, options) => {
    const client = await createApiClient(engine, {
      type: need(options, 'type'),
      projectId: options.project as string | undefined,
      name: options.name as string | undefined,
    })
    print({ ...client, note: 'The secret is shown once; only its scrypt hash is stored.' })
  },
  'client list': async (engine, _, options) => print((await listApiClients(engine, options.project as string | undefined)).map(clientOut)),
  'client revoke': async (engine, [id]) => {
    if (!id) throw new UsageError('client revoke needs a client id')
    await revokeApiClient(engine, id)
    print(`revoked ${id}`)
  },
  import: async (engine, _, options) => {
    const people = peopleFile(options)
    if (people) return importPeopleFile(engine, options, people)
    const file = need(options, 'file')
    const skipBad = options['skip-bad'] === true
    const progress = createProgress({ label: 'import', total: fs.existsSync(file) ? await countLines(file) : undefined })
    const fromProject = options['from-project'] as string | undefined
    const report = await importEvents(engine, {
      projectId: need(options, 'project'),
      file,
      skipBad,
      fromProject,
      onProgress: progress.update,
    }).catch((error: unknown) => {
      progress.done('failed')
      throw error
    })
    progress.done(
      report.badLines === 0
        ? undefined
        : skipBad
          ? `done, ${report.badLines} bad line(s) skipped`
          : `refused: ${report.badLines} bad line(s), nothing imported`,
    )
    for (const bad of report.bad) console.error(`line ${bad.line}: ${bad.problems.join('; ')}`)
    const unlisted = report.badLines - report.bad.length
    if (unlisted > 0) console.error(`and ${unlisted} more bad line(s), not listed`)
    if (report.badLines && !skipBad) {
      throw new ControlError(`${report.badLines} bad line(s); nothing was imported (use --skip-bad to import the good lines)`)
    }
    const resessioned = report.resessioned
      ? `; rebuilt the partial rows of ${report.resessioned} session(s) an earlier run was killed before writing`
      : ''
    const rediscovered = report.rediscovered
      ? `; rebuilt the discovery summaries of ${report.rediscovered} day(s) an earlier run was killed before counting`
      : ''
    print(
      `imported ${report.imported} event(s), skipped ${report.skipped} bad line(s), ${report.duplicates} already imported (not written again)${resessioned}${rediscovered}`,
    )
    print(await compactNow(engine))
  },
  seed: async (engine, _, options) => {
    const end = typeof options.end === 'string' ? new Date(options.end) : new Date()
    const projectId = need(options, 'project')
    const events = wholeNumber(options, 'events', 200_000)
    const progress = createProgress({ label: 'seed', total: events })
    const { seconds } = await seedProject(engine, {
      projectId,
      events,
      days: wholeNumber(options, 'days', 30),
      seed: wholeNumber(options, 'seed', 42),
      end,
      onProgress: progress.update,
    }).finally(progress.done)
    print(`seeded ${events} events into "${projectId}" in ${seconds.toFixed(1)} s`)
    print(await compactNow(engine))
  },
  export: async (engine, _, options) => {
    const people = peopleFile(options)
    if (people) {
      const rows = await exportPeople(engine, { kind: people.kind, projectId: need(options, 'project'), out: people.file })
      print(`exported ${rows} ${people.kind} to ${people.file}`)
      return
    }
    const out = need(options, 'out')
    let progress: ReturnType<typeof createProgress> | undefined
    const onTotal = (total: number) => {
      progress = createProgress({ label: 'export', total })
      progress.update(0)
    }
    const rows = await exportToFile(engine, loadConfig(), {
      projectId: need(options, 'project'),
      format: typeof options.format === 'string' ? options.format : 'ndjson',
      start: options.start as string | undefined,
      end: options.end as string | undefined,
      includes: options.includes as string | undefined,
      event: options.event as string | undefined,
      filters: options.filters as string | undefined,
      out,
      onTotal,
      onProgress: (written) => progress?.update(written),
    }).finally(() => progress?.done())
    print(`exported ${rows} event(s) to ${out}`)
  },
  compact: async (engine) => print(await compactNow(engine)),
  explain: async () => undefined,
  migrate: async (engine) => print(`applied: ${(await migrate(engine)).join(', ') || 'nothing (up to date)'}`),
}

const OPTIONS = {
  name: { type: 'string' },
  timezone: { type: 'string' },
  type: { type: 'string' },
  project: { type: 'string' },
  file: { type: 'string' },
  profiles: { type: 'string' },
  groups: { type: 'string' },
  'from-project': { type: 'string' },
  includes: { type: 'string' },
  event: { type: 'string' },
  filters: { type: 'string' },
  'skip-bad': { type: 'boolean' },
  events: { type: 'string' },
  days: { type: 'string' },
  seed: { type: 'string' },
  end: { type: 'string' },
  start: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  now: { type: 'string' },
  catalogue: { type: 'boolean' },
  help: { type: 'boolean' },
} as const

/** Writes the SQL catalogue, compiled without an engine, and names the files that changed. */
function writeSqlCatalogue(options: Options): number {
  const dir = typeof options.out === 'string' ? options.out : CATALOGUE_DIR
  const files = compileCatalogue()
  const changed = writeCatalogue(files, dir)
  print(`wrote the SQL catalogue to ${dir}: ${files.length} file(s), ${changed.length ? `changed ${changed.join(', ')}` : 'none changed'}`)
  return 0
}

/**
 * The engine `explain` reads a project's timezone and runs a session question's settled check on, or why
 * there is none. With --timezone it may do without one (the data directory held by a running gateway, or
 * not there), and then compiles with no settled day.
 */
async function explainEngine(config: Config, timezone: string | undefined): Promise<{ engine?: Engine; without?: string }> {
  const { engine: settings } = config
  if (timezone && settings.mode === 'embedded' && !fs.existsSync(settings.dataDir))
    return { without: `there is no data directory ${settings.dataDir}` }
  try {
    return { engine: await openCliEngine(config) }
  } catch (error) {
    if (!(error instanceof EngineBusyError)) throw error
    if (!timezone) throw new ControlError(`${error.message} Or pass --timezone IANA (the project's): explain then runs without the engine.`)
    return { without: error.message }
  }
}

/**
 * Prints what a request runs. The project's timezone comes from --timezone or, failing that, the database;
 * a session question's settled check runs first on the engine when there is one, so its statement is
 * printed as it runs.
 */
async function explain([url]: string[], options: Options, config: Config): Promise<number> {
  if (options.catalogue === true) {
    if (url) throw new UsageError('explain --catalogue takes no request path')
    return writeSqlCatalogue(options)
  }
  if (!url) throw new UsageError("explain needs a request path, e.g. '/insights/demo/referrer?range=30d'")
  const now = typeof options.now === 'string' ? new Date(options.now) : new Date()
  if (Number.isNaN(now.getTime())) throw new UsageError('--now must be an ISO date-time')
  const { projectId, settledCheck } = await explainTarget(url)
  let timezone = options.timezone as string | undefined
  const needsEngine = projectId !== undefined && (!timezone || settledCheck)
  const { engine, without } = needsEngine ? await explainEngine(config, timezone) : {}
  try {
    if (engine && projectId && !timezone) {
      const project = await findProject(engine, projectId)
      if (!project) throw new ControlError(`no project "${projectId}" (or pass --timezone)`)
      timezone = project.timezone
    }
    const runner = engine && createRunner(engine, config)
    const runCheck = runner && (async (check: CompiledQuery) => (await runner.run<SettledRow>(check)).rows)
    if (without) console.error(`quarry: no settled check can run (${without}): a session question is compiled with no settled day`)
    print(
      await explainRequest(
        url,
        (id) => ({
          project: { id, name: id, timezone: timezone ?? 'UTC' },
          now,
          sessionLookbackMs: config.sessionLookbackHours * 3_600_000,
        }),
        config.engine.mode === 'embedded',
        runCheck,
      ),
    )
    return 0
  } catch (error) {
    if (!(error instanceof QueryError)) throw error
    console.error(`quarry: ${error.message}`)
    for (const issue of error.issues) console.error(`  ${issue.path.join('.')}: ${issue.message}`)
    return 1
  } finally {
    await engine?.close()
  }
}

export async function runCli(argv: string[]): Promise<number> {
  let engine: Engine | undefined
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
    if (values.help || positionals.length === 0 || positionals[0] === 'help') {
      print(USAGE)
      return values.help || positionals[0] === 'help' ? 0 : 2
    }
    const twoWords = positionals.slice(0, 2).join(' ')
    const [key, rest] = COMMANDS[twoWords] ? [twoWords, positionals.slice(2)] : [positionals[0], positionals.slice(1)]
    const command = COMMANDS[key]
    if (!command) throw new UsageError(`unknown command "${positionals.join(' ')}"`)
    const config = loadConfig()
    if (key === 'explain') return await explain(rest, values, config)
    engine = await openCliEngine(config)
    if (key !== 'migrate') await prepareSchema(engine)
    await command(engine, rest, values)
    return 0
  } catch (error) {
    if (error instanceof UsageError) console.error(`quarry: ${error.message}\n${USAGE}`)
    else if (
      error instanceof ControlError ||
      error instanceof ConfigError ||
      error instanceof EngineBusyError ||
      error instanceof SchemaBehindError
    )
      console.error(`quarry: ${error.message}`)
    else if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(`quarry: ${(error as Error).message}\n${USAGE}`)
    else console.error('quarry: failed:', error)
    return error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1
  } finally {
    await engine?.close()
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code
  })
}
