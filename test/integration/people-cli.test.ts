// `import --profiles` / `--groups` and `export --profiles` / `--groups`: NDJSON in the tables' columns, every
// good line or none, a rerun writing nothing again, and a file written by export read back by import with
// the same keys (the fixture of test/support/people-fixture.ts).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runCliIn } from '../support/cli'
import { GROUPS, PROFILES } from '../support/people-fixture'

const ndjson = (rows: object[]) => `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`

describe('CLI: profiles and groups', function () {
  this.timeout(120_000)
  let dir: string
  let files: string
  const cli = (...argv: string[]) => runCliIn(dir, argv)
  const file = (name: string, text: string) => {
    const at = path.join(files, name)
    fs.writeFileSync(at, text)
    return at
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-people-cli-'))
    files = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-people-files-'))
    for (const id of ['people', 'copy']) assert.equal((await cli('project', 'create', id)).code, 0)
  })
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.rmSync(files, { recursive: true, force: true })
  })

  it('imports every version of the profiles and groups once: a rerun writes nothing again', async () => {
    const profiles = file('profiles.ndjson', ndjson(PROFILES))
    const first = await cli('import', '--project', 'people', '--profiles', profiles)
    assert.equal(first.code, 0, first.err)
    assert.match(first.out, /imported 4 profiles version\(s\), skipped 0 bad line\(s\), 0 already imported/)
    const again = await cli('import', '--project', 'people', '--profiles', profiles)
    assert.match(again.out, /imported 0 profiles version\(s\), skipped 0 bad line\(s\), 4 already imported/)
    const groups = file('groups.ndjson', ndjson(GROUPS))
    assert.match((await cli('import', '--project', 'people', '--groups', groups)).out, /imported 5 groups version\(s\)/)
    assert.match((await cli('import', '--project', 'people', '--groups', groups)).out, /imported 0 groups version\(s\).*5 already imported/)
  })

  it('exports each profile and group as its newest version, and imports the file back with the same keys', async () => {
    const out = path.join(files, 'exported-profiles.ndjson')
    const exported = await cli('export', '--project', 'people', '--profiles', out)
    assert.equal(exported.code, 0, exported.err)
    assert.match(exported.out, /exported 3 profiles/)
    const lines = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    assert.deepEqual(
      lines.map((line) => [line.id, line.email, line.groups, line.last_seen_at]),
      [
        ['alice', 'alice@example.com', ['acme'], '2024-03-08T10:02:00.000Z'],
        ['bob', 'bob@example.com', ['acme', 'globex'], '2024-03-05T00:00:00.000Z'],
        ['charlie', 'charlie@example.com', [], '2024-03-09T12:00:00.000Z'],
      ],
    )
    assert.deepEqual(Object.keys(lines[0]).sort(), [
      'avatar',
      'created_at',
      'email',
      'first_name',
      'groups',
      'id',
      'is_external',
      'last_name',
      'last_seen_at',
      'properties',
    ])
    assert.match((await cli('import', '--project', 'copy', '--profiles', out)).out, /imported 3 profiles version\(s\)/)
    const copied = path.join(files, 'copied-profiles.ndjson')
    await cli('export', '--project', 'copy', '--profiles', copied)
    assert.equal(fs.readFileSync(copied, 'utf8'), fs.readFileSync(out, 'utf8'))

    const groupsOut = path.join(files, 'exported-groups.ndjson')
    assert.match((await cli('export', '--project', 'people', '--groups', groupsOut)).out, /exported 3 groups/)
    const groups = fs
      .readFileSync(groupsOut, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    assert.deepEqual(
      groups.map((group) => [group.id, group.name, group.version, group.deleted]),
      [
        ['acme', 'Acme Corp', 2, 0],
        ['globex', 'Globex', 1, 0],
        ['initech', 'Initech', 2, 1],
      ],
    )
    assert.match((await cli('import', '--project', 'copy', '--groups', groupsOut)).out, /imported 3 groups version\(s\)/)
    const copiedGroups = path.join(files, 'copied-groups.ndjson')
    await cli('export', '--project', 'copy', '--groups', copiedGroups)
    assert.equal(fs.readFileSync(copiedGroups, 'utf8'), fs.readFileSync(groupsOut, 'utf8'))
  })

  it('refuses a file with bad lines, naming each, and imports nothing; --skip-bad imports the good ones', async () => {
    const bad = file(
      'bad.ndjson',
      ndjson([
        { id: 'dora', created_at: '2024-03-05T00:00:00.000Z', email: 'dora@example.com' },
        { created_at: 'yesterday', colour: 'red' },
        { id: 'eve', created_at: '2024-03-05T00:00:00.000Z', project_id: 'elsewhere' },
      ]),
    )
    const refused = await cli('import', '--project', 'people', '--profiles', bad)
    assert.equal(refused.code, 1)
    assert.match(refused.err, /line 2: .*unknown field "colour"/)
    assert.match(refused.err, /line 2: .*"id" is required/)
    assert.match(refused.err, /line 3: project_id "elsewhere" differs from --project "people"/)
    assert.match(refused.err, /2 bad line\(s\); nothing was imported/)
    const out = path.join(files, 'after-refusal.ndjson')
    assert.match((await cli('export', '--project', 'people', '--profiles', out)).out, /exported 3 profiles/)
    const skipped = await cli('import', '--project', 'people', '--profiles', bad, '--skip-bad')
    assert.match(skipped.out, /imported 1 profiles version\(s\), skipped 2 bad line\(s\)/)
  })

  it('takes one file to import: --file, --profiles or --groups', async () => {
    const both = await cli('import', '--project', 'people', '--file', 'a.ndjson', '--profiles', 'b.ndjson')
    assert.equal(both.code, 2)
    assert.match(both.err, /name one of --file, --profiles/)
  })
})
