// Every .sql file under sql/, found by walking the folder: templates have their headers and typed
// placeholders and render (with values, or with the fragments the routes' own compilers give);
// migrations render for a single node and for a cluster; broken copies are refused, naming the file.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { compileTemplate, type Params } from '../../queries/core/compiled'
import type { Scope } from '../../queries/core/pipeline'
import {
  checkBinding,
  checkTemplates,
  filledMarkers,
  findTemplateProblems,
  isKnownType,
  isRouteTemplate,
  listSqlFiles,
  loadTemplate,
  placeholdersOf,
} from '../../queries/core/templates'
import { joinedStatementsOf, statementsOf, type Statement } from '../../queries/run/statements'
import { renderMigration } from '../../server/admin/migrate'
import { ROUTES, resourceOf, type Route } from '../../server/routes/routes'
import { EXAMPLE_QUERIES, examplesFor } from '../../server/routes/examples'

const SQL_DIR = path.join(__dirname, '..', '..', 'sql')

function walk(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) return walk(path.join(dir, entry.name), relative)
    return entry.name.endsWith('.sql') ? [relative] : []
  })
}

const files = walk(SQL_DIR).sort()
const migrations = files.filter((file) => file.startsWith('migrations/'))
const templates = files.filter((file) => !file.startsWith('migrations/'))

/** An example value for a placeholder type. */
function exampleValue(type: string): Params[string] {
  if (/^Array\(String\)$/.test(type)) return ['a', "b'c"]
  if (/^Array\(/.test(type)) return [1, 2.5]
  if (/^DateTime64/.test(type)) return '2024-03-01 00:00:00.000'
  if (/^U?Int|^Float/.test(type)) return 7
  if (type === 'UUID') return '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001'
  return 'text'
}

/** What every rendered statement must satisfy: no marker left, typed placeholders, balanced parentheses. */
function assertWellFormed(label: string, sql: string): void {
  assert.doesNotMatch(sql, /\/\*\s*@/, `${label}: a marker is left`)
  assert.doesNotMatch(sql, /\$\{/, `${label}: JavaScript interpolation`)
  for (const [name, type] of placeholdersOf(sql)) assert.ok(isKnownType(type), `${label}: {${name}:${type}}`)
  const code = sql.replace(/--[^\n]*/g, '').replace(/'(\\.|[^'\\])*'/g, "''")
  let depth = 0
  for (const char of code) {
    depth += char === '(' ? 1 : char === ')' ? -1 : 0
    assert.ok(depth >= 0, `${label}: a ")" closes nothing`)
  }
  assert.equal(depth, 0, `${label}: unbalanced parentheses`)
}

describe('SQL templates', () => {
  it('finds every .sql file by walking sql/, the export templates included', () => {
    assert.deepEqual(listSqlFiles(), files)
    for (const dir of ['control', 'export', 'insights', 'migrations', 'seed'])
      assert.ok(
        files.some((file) => file.startsWith(`${dir}/`)),
        dir,
      )
    assert.equal(files.filter((file) => file.startsWith('export/')).length, 10, files.join(', '))
  })

  it('accepts every file of sql/ at startup', () => {
    assert.deepEqual(findTemplateProblems(), [])
    checkTemplates()
  })

  for (const file of templates) {
    it(`${file} has a header, typed placeholders (one type each) and no spliced values`, () => {
      const template = loadTemplate(file)
      assert.match(template.text, /^-- @name \S+$/m)
      assert.match(template.text, /^-- @returns .+$/m)
      // A fragment of fixed text (no placeholder, no marker) holds no value: a file's text is the same for every request.
      const fixed = template.returns?.kind === 'fragment' && template.placeholders.size === 0 && template.markers.length === 0
      assert.ok(
        template.placeholders.size > 0 || template.markers.length > 0 || fixed || !isRouteTemplate(file),
        `${file} binds its values, or its fragments do`,
      )
      for (const [name, type] of template.placeholders) {
        assert.ok(isKnownType(type), `${file}: {${name}:${type}}`)
        const uses = [...template.text.matchAll(new RegExp(`\\{${name}:([^{}]+?)\\}`, 'g'))].map((m) => m[1].trim())
        assert.ok(
          uses.every((use) => use === type),
          `${file}: ${name} is bound with one type (${uses.join(', ')})`,
        )
      }
      assert.doesNotMatch(template.text.replace(/^--.*$/gm, ''), /\$\{/, 'no JavaScript interpolation')
    })

    const template = loadTemplate(file)
    if (template.markers.length === 0) {
      it(`${file} renders with a value for each placeholder, and not without one`, () => {
        const params = Object.fromEntries([...template.placeholders].map(([name, type]) => [name, exampleValue(type)]))
        const compiled = compileTemplate(file, params)
        assert.equal(compiled.template, template.name)
        assertWellFormed(file, compiled.sql)
        const [first] = template.placeholders.keys()
        if (first) {
          const { [first]: _left, ...rest } = params
          assert.throws(() => compileTemplate(file, rest), new RegExp(`unbound placeholders \\[${first}\\]`))
        }
      })
    }
  }

  describe("rendered by the routes' own compilers", () => {
    const scope: Scope = {
      project: { id: 'shop', name: 'Shop', timezone: 'Europe/Berlin' },
      now: new Date('2024-03-31T12:00:00Z'),
      sessionLookbackMs: 86_400_000,
    }
    let rendered: { route: Route; query: Record<string, string>; statement: Statement }[] = []
    before(() => {
      rendered = ROUTES.flatMap((route) =>
        examplesFor(route).flatMap((query) =>
          [true, false].flatMap((streams) =>
            statementsOf(resourceOf(route), { ...query }, scope, streams).map((statement) => ({ route, query, statement })),
          ),
        ),
      )
      // The statements of the routes that join (the breakdowns), every one asked together.
      for (const query of EXAMPLE_QUERIES) {
        const routes = ROUTES.filter((route) => examplesFor(route).includes(query))
        const [first] = routes.filter((route) => route.resource.joins)
        rendered.push(
          ...joinedStatementsOf(routes.map(resourceOf), { ...query }, scope).map((statement) => ({ route: first, query, statement })),
        )
      }
    })

    it('reach every template with markers and fill each of its markers', () => {
      const withMarkers = templates.filter((file) => isRouteTemplate(file) && loadTemplate(file).markers.length > 0)
      assert.ok(withMarkers.length >= 12, withMarkers.join(', '))
      for (const file of withMarkers) {
        for (const marker of loadTemplate(file).markers)
          assert.ok(filledMarkers().has(`${file} @${marker}`), `${file}: @${marker} is filled by an example request`)
      }
    })

    it('give well-formed statements that bind exactly their placeholders', () => {
      assert.ok(rendered.length >= ROUTES.length, `${rendered.length} statements`)
      assert.ok(
        rendered.some(({ statement }) => statement.compiled.template === 'insights.dimension_sets'),
        'the breakdowns asked together',
      )
      for (const { route, query, statement } of rendered) {
        const label = `${route.path}?${new URLSearchParams(query)} (${statement.label})`
        assertWellFormed(label, statement.compiled.sql)
        assert.doesNotThrow(() => checkBinding(statement.compiled.template, statement.compiled.sql, statement.compiled.params), label)
      }
    })
  })

  it('knows the types ClickHouse binds, and no others', () => {
    for (const type of [
      'String',
      'UUID',
      'UInt32',
      'UInt64',
      'Int64',
      'Float64',
      "DateTime64(3, 'UTC')",
      'DateTime64(3)',
      'Array(String)',
      'Array(Float64)',
      'Nullable(String)',
      'Array(Nullable(UInt8))',
    ]) {
      assert.ok(isKnownType(type), type)
    }
    for (const type of ['Strnig', 'string', 'DateTime64', 'DateTime(3)', 'Array(Strnig)', 'Array()', 'DateTime64(3, UTC)'])
      assert.ok(!isKnownType(type), type)
  })

  it('refuses to compile with an unbound placeholder or an unused value', () => {
    assert.throws(() => compileTemplate('insights/live.sql', { projectId: 'p', since: 'x' }), /unbound placeholders \[now\]/)
    assert.throws(() => compileTemplate('insights/live.sql', { projectId: 'p', since: 'x', now: 'y', extra: 1 }), /unused params \[extra\]/)
    assert.throws(() => checkBinding('t', 'SELECT {a:String}', {}), /unbound placeholders \[a\]/)
  })

  it('refuses a marker fragment that redefines a param of the statement', () => {
    assert.throws(
      () =>
        compileTemplate(
          'insights/dimension.sql',
          { projectId: 'p', rowsToRead: 1, offset: 0 },
          { prefix: { sql: "''", params: { offset: 5 } } },
        ),
      /Fragment param offset collides/,
    )
  })

  it('refuses to compile while a marker is left unfilled', () => {
    assert.throws(() => compileTemplate('insights/dimension.sql', { projectId: 'p', rowsToRead: 1, offset: 0 }), /marker @\w+ not filled/)
  })
})

describe('migrations', () => {
  it('are found by walking sql/migrations', () => {
    assert.ok(migrations.length >= 2, migrations.join(', '))
  })

  for (const file of migrations) {
    const text = fs.readFileSync(path.join(SQL_DIR, file), 'utf8')

    it(`${file} renders for a single node: plain engines, no cluster DDL`, () => {
      const statements = renderMigration(text, { database: 'analytics' })
      assert.ok(statements.length > 0)
      for (const statement of statements) {
        assert.match(
          statement,
          /^(CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS|(TRUNCATE|DROP) TABLE IF EXISTS|RENAME TABLE|ALTER TABLE|INSERT INTO) \w+/,
        )
        assert.doesNotMatch(statement, /\{\{|\}\}|ON CLUSTER|Replicated|Distributed|_local\b/, statement)
        assertWellFormed(file, statement)
      }
    })

    it(`${file} renders for a cluster: every statement ON CLUSTER but a backfill, tables replicated or distributed over local ones (columns added to both)`, () => {
      const statements = renderMigration(text, { cluster: 'main', database: 'analytics' })
      assert.ok(statements.length > 0)
      const locals = new Set(statements.map((statement) => /^CREATE TABLE IF NOT EXISTS (\w+)_local /.exec(statement)?.[1]).filter(Boolean))
      for (const statement of statements) {
        // A backfill runs once, from the migrating node, through the Distributed tables (never ON CLUSTER,
        // which would repeat it on every node).
        if (statement.startsWith('INSERT INTO ')) {
          assert.doesNotMatch(statement, /ON CLUSTER|_local\b/, statement)
          assertWellFormed(file, statement)
          continue
        }
        assert.match(
          statement,
          /^(CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS \w+|(TRUNCATE|DROP) TABLE IF EXISTS \w+|RENAME TABLE \w+_local TO \w+_local|ALTER TABLE \w+_local|ALTER TABLE \w+(?= ON CLUSTER 'main'\s+ADD COLUMN)|ALTER TABLE \w+_mv(?= ON CLUSTER 'main'\s+MODIFY QUERY)) ON CLUSTER 'main'/,
          statement,
        )
        assert.doesNotMatch(statement, /\{\{|\}\}/, statement)
        const table = /^CREATE TABLE IF NOT EXISTS (\w+) /.exec(statement)?.[1]
        if (table)
          assert.match(
            statement,
            /ENGINE = (Replicated\w+\('\/clickhouse\/tables\/(\{shard\}|all)\/analytics\/\w+', '\{replica\}'|Distributed\('main', 'analytics', '\w+_local')/,
            statement,
          )
        const distributed = /^CREATE TABLE IF NOT EXISTS (\w+) ON CLUSTER 'main' AS (\w+)_local ENGINE = Distributed/.exec(statement)
        if (distributed) {
          assert.equal(distributed[1], distributed[2])
          assert.ok(locals.has(distributed[1]), `${distributed[1]}_local is created before its Distributed table`)
        }
        assertWellFormed(file, statement)
      }
    })
  }
})

describe('checkTemplates on a broken copy of sql/', () => {
  let dir: string
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-sql-'))
    fs.cpSync(SQL_DIR, dir, { recursive: true })
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  const edit = (file: string, change: (text: string) => string) =>
    fs.writeFileSync(path.join(dir, file), change(fs.readFileSync(path.join(dir, file), 'utf8')))

  it('passes the copy as it is', () => {
    assert.doesNotThrow(() => checkTemplates(dir))
  })

  const cases: [string, string, (text: string) => string, RegExp][] = [
    ['an unknown marker', 'insights/live.sql', (text) => `${text}\n/* @bogus */`, /insights\/live\.sql: unknown marker @bogus/],
    [
      'a marker written loosely',
      'export/count.sql',
      (text) => text.replace('/* @conditions */', '/*@conditions*/'),
      /export\/count\.sql: \/\*@conditions\*\/ is not a marker/,
    ],
    [
      'a placeholder without a type',
      'export/count.sql',
      (text) => text.replace('{projectId:String}', '{projectId}'),
      /export\/count\.sql: \{projectId\} is not a \{name:Type\} placeholder/,
    ],
    [
      'a placeholder with an unknown type',
      'export/events.sql',
      (text) => text.replace('{projectId:String}', '{projectId:Array(Strnig)}'),
      /export\/events\.sql: \{projectId:Array\(Strnig\)\} has an unknown type/,
    ],
    [
      'one name bound with two types',
      'insights/live.sql',
      (text) => text.replace("{now:DateTime64(3, 'UTC')}", '{since:DateTime64(3)}'),
      /insights\/live\.sql: \{since\} is bound with several types/,
    ],
    [
      'no @name',
      'seed/profiles.sql',
      (text) => text.replace('-- @name seed.profiles', '-- seed.profiles'),
      /seed\/profiles\.sql: needs exactly one "-- @name" header/,
    ],
    [
      'no @returns',
      'export/chart.sql',
      (text) => text.replace(/^-- @returns/m, '-- returns'),
      /export\/chart\.sql: needs a "-- @returns" header/,
    ],
    [
      "a statement's @returns without a column list",
      'insights/live.sql',
      (text) => text.replace(/^-- @returns .*$/m, '-- @returns one row: visitors'),
      /insights\/live\.sql: "-- @returns" needs a column list \(name Type, \.\.\.\), "nothing" or "fragment:"/,
    ],
    [
      'a column of @returns with an unknown type',
      'insights/live.sql',
      (text) => text.replace(/^-- @returns .*$/m, '-- @returns visitors UInt46'),
      /insights\/live\.sql: "-- @returns" column visitors has an unknown type UInt46/,
    ],
    [
      'a column of @returns named twice',
      'export/count.sql',
      (text) => text.replace(/^-- @returns .*$/m, '-- @returns total UInt64, total UInt64'),
      /export\/count\.sql: "-- @returns" names the column total twice/,
    ],
    [
      '@returns ending in a marker the template does not have',
      'export/count.sql',
      (text) => text.replace(/^-- @returns .*$/m, '-- @returns total UInt64, @includes'),
      /export\/count\.sql: "-- @returns" ends in @includes, which is not a marker of the template/,
    ],
    [
      'a @name used twice',
      'export/count.sql',
      (text) => text.replace('@name export.count', '@name export.events'),
      /export\/(count|events)\.sql: @name export\.events is also the name of/,
    ],
    [
      'JavaScript interpolation',
      'insights/live.sql',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the case is a template that holds JavaScript's interpolation
      (text) => text.replace('project_id = {projectId:String}', "project_id = '${projectId}'"),
      /insights\/live\.sql: contains JavaScript interpolation/,
    ],
    [
      'a migration naming another file',
      'migrations/001_source_tables.sql',
      (text) => text.replace('@migration 001_source_tables', '@migration 001_tables'),
      /migrations\/001_source_tables\.sql: needs the header "-- @migration 001_source_tables"/,
    ],
    [
      'a migration binding a value',
      'migrations/001_source_tables.sql',
      (text) => text.replace('ORDER BY (project_id, id)', 'ORDER BY (project_id, id) TTL {ttl:UInt32}'),
      /migrations\/001_source_tables\.sql: binds a \{name:Type\} placeholder/,
    ],
  ]
  for (const [problem, file, change, message] of cases) {
    it(`refuses ${problem}, naming the file`, () => {
      edit(file, change)
      assert.throws(() => checkTemplates(dir), message)
    })
  }

  it('lists every problem at once, in a new folder too', () => {
    fs.mkdirSync(path.join(dir, 'extra'))
    fs.writeFileSync(path.join(dir, 'extra', 'drop.sql'), '-- @name extra.drop\nDROP TABLE {table:Identifer}\n')
    edit('insights/live.sql', (text) => `${text}\n/* @bogus */`)
    const problems = findTemplateProblems(dir)
    assert.equal(problems.length, 3, problems.join('\n'))
    assert.equal(problems[0], 'extra/drop.sql: needs a "-- @returns" header')
    assert.equal(problems[1], 'extra/drop.sql: {table:Identifer} has an unknown type')
    assert.match(problems[2], /^insights\/live\.sql: unknown marker @bogus; known: aggregate, .*\bconditions\b/)
    assert.throws(
      () => checkTemplates(dir),
      (error: Error) => problems.every((problem) => error.message.includes(problem)),
    )
  })
})
