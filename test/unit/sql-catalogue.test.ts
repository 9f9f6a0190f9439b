// The SQL catalogue in docs/sql/ is what the code compiles: one file per route with every statement and its
// params for the startup check's example requests, a route added later included, and a stale file named.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { compileTemplate } from '../../queries/core/compiled'
import type { Resource } from '../../queries/core/pipeline'
import { liveResponse } from '../../queries/insights/responses'
import { COMPACTION_DEFINITION } from '../../queries/sessions/definition'
import {
  BREAKDOWNS_FILE,
  CATALOGUE_COMMAND,
  CATALOGUE_SCOPE,
  DEFINITION_SHOWN,
  catalogueFileName,
  compareCatalogue,
  compileCatalogue,
  statementsDigest,
  writeCatalogue,
  type CatalogueFile,
} from '../../server/admin/catalogue'
import { projectIdIn, resolveRequest } from '../../server/admin/explain'
import { statementsOf } from '../../queries/run/statements'
import { BREAKDOWN_ROUTES, ROUTES, resourceOf, type Route } from '../../server/routes/routes'
import type { CompiledQuery } from '../../queries/core/compiled'
import { examplesFor } from '../../server/routes/examples'
import { runCliIn } from '../support/cli'

/** The contents of the fenced blocks of one language in a Markdown text, in order. */
const blocks = (text: string, language: string) =>
  [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([^]*?)\\n\`\`\`$`, 'gm'))].map(([, body]) => body)

/** The URL of a request block: `GET path`, then one `?name=value` or `&name=value` line per parameter. */
function urlOf(block: string): string {
  const [request, ...lines] = block.split('\n')
  const search = new URLSearchParams(
    lines.map((line) => {
      const [, name, value] = /^ {2}[?&]([^=]+)=(.*)$/.exec(line) ?? []
      return [name, value]
    }),
  )
  return `${request.replace(/^GET /, '')}${lines.length ? `?${search}` : ''}`
}

/** A route of one statement that takes no parameters, as a later branch might add. */
const probeRoute: Route = {
  path: '/insights/:projectId/probe',
  summary: 'A probe',
  resource: {
    name: 'probe',
    schema: { type: 'object', additionalProperties: false, properties: {} },
    parse: () => ({}),
    plan: (query) => query,
    compile: () => compileTemplate('insights/live.sql', { projectId: 'demo', since: 'a', now: 'b' }),
    shape: () => ({ body: null }),
  } satisfies Resource<unknown>,
  response: liveResponse,
}

/** The statements of every example request of a route, each engine's where they differ. */
function exampleStatements(route: Route) {
  return examplesFor(route).flatMap((query) => {
    const embedded = statementsOf(resourceOf(route), { ...query }, CATALOGUE_SCOPE, true)
    const server = statementsOf(resourceOf(route), { ...query }, CATALOGUE_SCOPE, false)
    return JSON.stringify(embedded) === JSON.stringify(server) ? embedded : [...embedded, ...server]
  })
}

/** The file a route's statements are written to: its own, or for a breakdown the breakdowns' page. */
const fileOf = (route: Route) => (route.breakdown ? BREAKDOWNS_FILE : catalogueFileName(route.path))
/** The routes whose statements are written out: every route but the breakdowns after the first. */
const writtenOut = ROUTES.filter((route) => !route.breakdown || route === BREAKDOWN_ROUTES[0])
/** Params as the catalogue prints them: the definition of the combined tables by name. */
const printed = (params: object) =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [name, value === COMPACTION_DEFINITION ? DEFINITION_SHOWN : value]))

/** The rows of the breakdowns' table: breakdown, groups by, prefix, digest, each cell without its backticks. */
const breakdownRows = (text: string) =>
  [...text.matchAll(/^\| `(\w+)` \| (.+) \| (.+) \| `(\w+)` \|$/gm)].map(([, name, groups, prefix, digest]) => ({
    name,
    groups,
    prefix,
    digest,
  }))

/** A breakdown route whose every statement ends with one more space: a change to that breakdown's SQL alone. */
function withOneMoreSpace(route: Route): Route {
  const resource = resourceOf(route)
  const compile = (query: unknown, settled: never): CompiledQuery => {
    const compiled = resource.compile(query, settled)
    return { ...compiled, sql: `${compiled.sql} ` }
  }
  return { ...route, resource: { ...resource, compile } }
}

describe('SQL catalogue (docs/sql/)', function () {
  this.timeout(60_000)
  let catalogue: CatalogueFile[]
  let dir: string
  before(() => {
    catalogue = compileCatalogue()
  })
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-catalogue-'))
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('is checked in as the code compiles it', () => {
    const problems = compareCatalogue(catalogue)
    assert.deepEqual(
      problems,
      [],
      `${problems.join('\n')}\nThe SQL catalogue is out of date: run \`${CATALOGUE_COMMAND}\` and review the SQL diff of docs/sql/.`,
    )
  })

  it('has a file per route but one for the breakdowns, the joined statements and an index linking every route', () => {
    const names = [...new Set(ROUTES.map(fileOf))]
    assert.equal(names.length, ROUTES.length - 17)
    assert.deepEqual(
      catalogue.map((file) => file.name),
      [...names, 'joined.md', 'README.md'],
    )
    const index = catalogue.find((file) => file.name === 'README.md')!.text
    for (const route of ROUTES) assert.ok(index.includes(`| \`GET ${route.path}\` | [${fileOf(route)}](${fileOf(route)}) |`), route.path)
    assert.match(index, new RegExp(`Regenerate after changing a query: \`${CATALOGUE_COMMAND}\``))
  })

  it('holds every statement of every example request, with its params, exactly as explain compiles them', () => {
    for (const route of writtenOut) {
      const expected = exampleStatements(route)
      const text = catalogue.find((file) => file.name === fileOf(route))!.text
      assert.deepEqual(
        blocks(text, 'sql'),
        expected.map((statement) => statement.compiled.sql),
        route.path,
      )
      assert.deepEqual(
        blocks(text, 'json').map((json) => JSON.parse(json)),
        expected.map((statement) => printed(statement.compiled.params)),
        route.path,
      )
    }
  })

  it('writes the settled check first, then the statement compiled with no settled day, saying so', () => {
    const referrer = catalogue.find((file) => file.name === BREAKDOWNS_FILE)!.text
    const headings = [...referrer.matchAll(/^### (.+)$/gm)].map(([, heading]) => heading)
    assert.match(headings[0], /^Statement 1: settled check .*; not run here$/)
    assert.match(headings[1], /^Statement 2: referrer \(compiled with no settled day, as no check ran/)
    assert.match(referrer, /^Template `insights.settled_days` \(sql\/sessions\/settled-days\.sql\)\.$/m)
  })

  it('writes a stream both ways when the engines run it differently', () => {
    const events = catalogue.find((file) => file.name === 'export-events.md')!.text
    const csv = events.slice(events.indexOf('  &format=csv\n  &includes=geo,device'))
    assert.match(
      csv,
      /### On the embedded engine[^]*#### Statement 1: stream[^]*Template `export.events-csv-lines`[^]*### On a ClickHouse server\n\n#### Statement 1: chunk[^]*Template `export.events-csv`/,
    )
  })

  it('shows each request as the gateway reads it: the route, the project where it reads it, the parameters', async () => {
    for (const route of writtenOut) {
      const text = catalogue.find((file) => file.name === fileOf(route))!.text
      const requests = blocks(text, 'text').map(urlOf)
      assert.equal(requests.length, examplesFor(route).length, route.path)
      for (const [index, url] of requests.entries()) {
        const resolved = await resolveRequest(url)
        assert.equal(resolved?.route, route, url)
        assert.equal(projectIdIn(resolved), 'demo', url)
        const { projectId, ...query } = resolved.query
        assert.deepEqual(query, examplesFor(route)[index], url)
        if (projectId !== undefined) assert.equal(route.projectFrom, 'query', url)
      }
    }

    const charts = catalogue.find((file) => file.name === 'export-charts.md')!.text
    assert.match(charts, /```text\nGET \/export\/charts\n {2}\?projectId=demo\n {2}&series=\[\{"name":"\*"\},/)
    const pages = catalogue.find((file) => file.name === 'insights-pages.md')!.text
    assert.match(pages, /```text\nGET \/insights\/demo\/pages\n {2}\?range=7d\n {2}&limit=5\n {2}&filters=\[\{"name":"country"/)
  })

  it('takes a route added later from its example requests alone', () => {
    const files = compileCatalogue([probeRoute])
    assert.deepEqual(
      files.map((file) => file.name),
      ['insights-probe.md', 'README.md'],
    )
    assert.deepEqual(
      blocks(files[0].text, 'json').map((json) => JSON.parse(json)),
      [{ projectId: 'demo', since: 'a', now: 'b' }],
    )
    assert.match(files[1].text, /\| `GET \/insights\/:projectId\/probe` \| \[insights-probe\.md\]\(insights-probe\.md\) \| A probe \|/)
  })

  it('names a file that differs (with the line), a missing one and a stale one', () => {
    const files = compileCatalogue([probeRoute])
    writeCatalogue(files, dir)
    assert.deepEqual(compareCatalogue(files, dir), [])
    const probe = path.join(dir, 'insights-probe.md')
    fs.writeFileSync(probe, fs.readFileSync(probe, 'utf8').replace('AND created_at <= {now:', 'AND created_at < {now:'))
    fs.rmSync(path.join(dir, 'README.md'))
    fs.writeFileSync(path.join(dir, 'insights-gone.md'), '# gone\n')
    const line = files[0].text.split('\n').indexOf("  AND created_at <= {now:DateTime64(3, 'UTC')}") + 1
    assert.deepEqual(compareCatalogue(files, dir), [
      `${probe} differs from what the code compiles from line ${line}:\n    in the file: ${"  AND created_at < {now:DateTime64(3, 'UTC')}"}\n    compiled:    ${"  AND created_at <= {now:DateTime64(3, 'UTC')}"}`,
      `${path.join(dir, 'README.md')} is missing`,
      `${path.join(dir, 'insights-gone.md')} is no route's (the route was removed or renamed)`,
    ])
  })

  it('is written by the CLI, which rewrites only what changed and removes stale files', async () => {
    fs.writeFileSync(path.join(dir, 'insights-gone.md'), '# gone\n')
    const first = await runCliIn(dir, ['explain', '--catalogue', '--out', dir])
    assert.equal(first.code, 0, first.err)
    assert.deepEqual(compareCatalogue(catalogue, dir), [])
    const changed = first.out.match(/^wrote the SQL catalogue to .+: (\d+) file\(s\), changed (.+)\n$/)
    assert.equal(changed?.[1], String(catalogue.length), first.out)
    assert.deepEqual(changed?.[2].split(', ').sort(), [...catalogue.map((file) => file.name), 'insights-gone.md'].sort())
    const second = await runCliIn(dir, ['explain', '--catalogue', '--out', dir])
    assert.equal(second.out, `wrote the SQL catalogue to ${dir}: ${catalogue.length} file(s), none changed\n`)
    assert.equal((await runCliIn(dir, ['explain', '/insights/demo/live', '--catalogue'])).code, 2)
  })

  it('prints the definition of the combined tables by name, never its value, so a changed build changes no page', () => {
    const shown = catalogue.filter((file) => file.text.includes(`"definition": "${DEFINITION_SHOWN}"`)).map((file) => file.name)
    assert.ok(shown.includes(BREAKDOWNS_FILE) && shown.includes('insights-pages.md'), shown.join(', '))
    assert.deepEqual(
      catalogue.filter((file) => file.text.includes(COMPACTION_DEFINITION)).map((file) => file.name),
      [],
    )
  })

  it('folds the breakdowns into one page: the statements of the first, and a row for each of what it groups by', () => {
    const page = catalogue.find((file) => file.name === BREAKDOWNS_FILE)!.text
    const rows = breakdownRows(page)
    assert.deepEqual(
      rows.map((row) => row.name),
      BREAKDOWN_ROUTES.map((route) => route.breakdown),
    )
    assert.equal(rows.length, 18)
    const row = (name: string) => rows.find((candidate) => candidate.name === name)
    assert.deepEqual(row('referrer'), { ...row('referrer'), groups: '`referrer` (`s_referrer`)', prefix: "none (`''`)" })
    assert.deepEqual(row('region'), { ...row('region'), groups: '`region` (`s_region`)', prefix: '`country` (`s_country`)' })
    assert.deepEqual(row('os_version'), { ...row('os_version'), groups: '`os_version` (`s_os_version`)', prefix: '`os` (`s_os`)' })
    for (const route of BREAKDOWN_ROUTES)
      assert.equal(row(route.breakdown!)?.digest, statementsDigest(exampleStatements(route)), route.path)
    assert.equal(new Set(rows.map((each) => each.digest)).size, 18)
    const [first] = BREAKDOWN_ROUTES
    assert.deepEqual(
      blocks(page, 'sql'),
      exampleStatements(first).map((statement) => statement.compiled.sql),
    )
    for (const route of BREAKDOWN_ROUTES)
      assert.equal(
        catalogue.find((file) => file.name === catalogueFileName(route.path)),
        undefined,
        route.path,
      )
  })

  it('changes the row of a breakdown whose statements change, and nothing else', () => {
    const city = BREAKDOWN_ROUTES.find((route) => route.breakdown === 'city')!
    const changed = compileCatalogue(ROUTES.map((route) => (route === city ? withOneMoreSpace(route) : route)))
    const differing = changed.filter((file, index) => file.text !== catalogue[index].text)
    assert.deepEqual(
      differing.map((file) => file.name),
      [BREAKDOWNS_FILE],
    )
    const before = catalogue.find((file) => file.name === BREAKDOWNS_FILE)!.text.split('\n')
    const after = differing[0].text.split('\n')
    assert.deepEqual(
      after.filter((line, index) => line !== before[index]).map((line) => breakdownRows(line)[0]?.name),
      ['city'],
    )
  })

  it("names a file by the route's fixed path segments", () => {
    assert.equal(catalogueFileName('/insights/:projectId/referrer'), 'insights-referrer.md')
    assert.equal(catalogueFileName('/export/events'), 'export-events.md')
  })
})
