import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../../server/config'
import { openEngine } from '../../server/engine'
import { runCliIn } from '../support/cli'
import { startHarness } from '../support/harness'

const ROOT = path.join(__dirname, '..', '..')

const cli = (dir: string, ...argv: string[]) => runCliIn(dir, argv)

const event = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001',
    name: 'screen_view',
    device_id: 'dev-1',
    session_id: 'sess-1',
    created_at: '2024-03-01T10:00:00.000Z',
    path: '/',
    ...overrides,
  })

describe('CLI', () => {
  let dir: string
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-'))
  })
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('creates and lists projects, validating the id and the IANA timezone', async () => {
    const created = await cli(dir, 'project', 'create', 'shop', '--name', 'Shop', '--timezone', 'Europe/Berlin')
    assert.equal(created.code, 0, created.err)
    assert.deepEqual(Object.keys(JSON.parse(created.out)), ['id', 'name', 'timezone', 'createdAt'])
    assert.equal(JSON.parse(created.out).timezone, 'Europe/Berlin')
    const badZone = await cli(dir, 'project', 'create', 'blog', '--timezone', 'Europe/Atlantis')
    assert.equal(badZone.code, 1)
    assert.match(badZone.err, /"Europe\/Atlantis" is not an IANA time zone/)
    const badId = await cli(dir, 'project', 'create', 'Bad Id!')
    assert.equal(badId.code, 1)
    assert.match(badId.err, /project id "Bad Id!" must be/)
    const twice = await cli(dir, 'project', 'create', 'shop')
    assert.match(twice.err, /already exists/)
    const listed = await cli(dir, 'project', 'list')
    assert.deepEqual(
      JSON.parse(listed.out).map((p: { id: string }) => p.id),
      ['shop'],
    )
  })

  it('creates clients, shows the secret once, stores only its scrypt hash, and revokes', async () => {
    const created = await cli(dir, 'client', 'create', '--type', 'read', '--project', 'shop')
    assert.equal(created.code, 0, created.err)
    const client = JSON.parse(created.out)
    assert.match(client.secret, /^sec_/)
    const listed = await cli(dir, 'client', 'list')
    const [shown] = JSON.parse(listed.out) as Record<string, unknown>[]
    assert.deepEqual(Object.keys(shown), ['id', 'name', 'type', 'projectId', 'createdAt', 'revoked'], 'the keys client create answers with')
    assert.deepEqual([shown.id, shown.projectId, shown.revoked], [client.id, 'shop', false])
    assert.ok(!listed.out.includes(client.secret), 'list never shows a secret')
    assert.ok(!listed.out.includes('secret_hash'), 'list never shows the hash')
    const files = spawnSync('grep', ['-rl', client.secret, dir]).stdout.toString()
    assert.equal(files, '', 'the secret is not stored in the data directory')
    const revoked = await cli(dir, 'client', 'revoke', client.id)
    assert.equal(revoked.code, 0, revoked.err)
    assert.equal(JSON.parse((await cli(dir, 'client', 'list')).out)[0].revoked, true)
    assert.match((await cli(dir, 'client', 'revoke', client.id)).err, /already revoked/)
  })

  it('refuses bad client requests with a clear message', async () => {
    assert.match(
      (await cli(dir, 'client', 'create', '--type', 'admin', '--project', 'shop')).err,
      /client type must be one of read, write, root/,
    )
    assert.match((await cli(dir, 'client', 'create', '--type', 'read')).err, /a read client needs --project/)
    assert.match((await cli(dir, 'client', 'create', '--type', 'read', '--project', 'nope')).err, /no project "nope"/)
    assert.match((await cli(dir, 'client', 'create', '--type', 'root', '--project', 'shop')).err, /root client reads every project/)
    assert.match((await cli(dir, 'client', 'revoke', 'xyz')).err, /not a client id/)
    assert.match((await cli(dir, 'client', 'create')).err, /--type is required/)
  })

  it('lists its commands on `help`, with exit code 0', async () => {
    const help = await cli(dir, 'help')
    assert.equal(help.code, 0, help.err)
    assert.match(help.out, /^Usage: npm run cli -- <command>/)
    assert.match(help.out, /--includes properties,geo,device,referrer,meta,page,revenue,groups/)
    assert.match(help.out, /With --timezone it runs\s+without the engine/)
  })

  it('reports usage errors with exit code 2', async () => {
    const unknown = await cli(dir, 'frobnicate')
    assert.equal(unknown.code, 2)
    assert.match(unknown.err, /unknown command "frobnicate"/)
    const badFlag = await cli(dir, 'project', 'list', '--colour')
    assert.equal(badFlag.code, 2)
    assert.match(badFlag.err, /Unknown option '--colour'/)
  })

  it('imports nothing when any line is bad, and lists every bad line by number', async () => {
    const file = path.join(dir, 'events.ndjson')
    fs.writeFileSync(
      file,
      [
        event(),
        '{not json',
        event({ id: 'nope', created_at: '2024-03-01 10:00' }),
        event({ id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0004', project_id: 'blog' }),
        event({ id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0005', properties: { price: 5 }, colour: 'red' }),
        '',
        event({ id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0007', created_at: '2024-03-01T11:00:00+01:00' }),
      ].join('\n'),
    )
    const refused = await cli(dir, 'import', '--project', 'shop', '--file', file)
    assert.equal(refused.code, 1)
    assert.match(refused.err, /line 2: not JSON/)
    assert.match(refused.err, /line 3: .*"id" must match format "uuid"/)
    assert.match(refused.err, /line 3: .*"created_at" must match format "date-time"/)
    assert.match(refused.err, /line 4: project_id "blog" differs from --project "shop"/)
    assert.match(refused.err, /line 5: .*unknown field "colour"/)
    assert.match(refused.err, /line 5: .*properties\.price" must be string/)
    assert.match(refused.err, /4 bad line\(s\); nothing was imported/)
    const shown = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'server', 'admin', 'cli.ts'), 'import', '--project', 'shop', '--file', file],
      {
        cwd: ROOT,
        env: { ...process.env, QUARRY_DATA_DIR: dir },
        encoding: 'utf8',
        timeout: 120_000,
      },
    )
    assert.equal(shown.status, 1, shown.stderr)
    assert.match(
      shown.stderr,
      /^import 100% \| 7\/7 rows \| [\d,]+ rows\/s \| refused: 4 bad line\(s\), nothing imported$/m,
      'the progress line says it refused',
    )
    assert.doesNotMatch(shown.stderr, /done in/)
    const count = async () => {
      const engine = await openEngine(loadConfig({ QUARRY_DATA_DIR: dir }).engine)
      try {
        const rows = await engine.client
          .query({ query: "SELECT count() AS n, min(created_at) AS first FROM events WHERE project_id = 'shop'", format: 'JSONEachRow' })
          .then((rs) => rs.json<{ n: number; first: string }>())
        return rows[0]
      } finally {
        await engine.close()
      }
    }
    assert.equal((await count()).n, 0)
    const skipped = await cli(dir, 'import', '--project', 'shop', '--file', file, '--skip-bad')
    assert.equal(skipped.code, 0, skipped.err)
    assert.match(skipped.out, /imported 2 event\(s\), skipped 4 bad line\(s\)/)
    assert.deepEqual(await count(), { n: 2, first: '2024-03-01 10:00:00.000' })
  })

  it('refuses an import into an unknown project or from a missing file', async () => {
    assert.match((await cli(dir, 'import', '--project', 'nope', '--file', 'x.ndjson')).err, /no project "nope"/)
    assert.match((await cli(dir, 'import', '--project', 'shop', '--file', '/no/such.ndjson')).err, /no file/)
    assert.match((await cli(dir, 'import', '--project', 'shop')).err, /--file is required/)
  })

  it('explains a request, running only its settled check: exact SQL and bound params', async () => {
    const filters = encodeURIComponent(JSON.stringify([{ name: 'country', operator: 'is', value: ["D'E"] }]))
    const explained = await cli(dir, 'explain', `/insights/shop/referrer?range=30d&filters=${filters}`, '--now', '2024-03-31T12:00:00Z')
    assert.equal(explained.code, 0, explained.err)
    assert.match(explained.out, /^-- statement: settled check .*; run here, it returned \d+ settled day\(s\)$/m)
    assert.match(explained.out, /^-- statement: referrer \(compiled with the settled days the check returned: what runs\)$/m)
    assert.match(explained.out, /-- template: insights\.dimension/)
    assert.match(explained.out, /"start": "2024-03-01 23:00:00.000"/, 'Berlin project timezone read from the database')
    assert.match(explained.out, /AND \(s_country IN \{f0_v:Array\(String\)\}\)/)
    assert.match(explained.out, /"D'E"/)
    const chart = await cli(dir, 'explain', '/export/charts?projectId=shop&series=[{"name":"a"}]', '--timezone', 'UTC')
    assert.equal(chart.code, 0, chart.err)
    assert.match(chart.out, /-- template: export\.chart/)
  })

  it('lists every problem of a request it cannot explain', async () => {
    const explained = await cli(dir, 'explain', '/insights/shop/pages?limit=0&bogus=1', '--timezone', 'UTC')
    assert.equal(explained.code, 1)
    assert.match(explained.err, /limit: "limit" must be >= 1/)
    assert.match(explained.err, /bogus: unknown parameter "bogus"/)
    assert.match((await cli(dir, 'explain', '/nowhere', '--timezone', 'UTC')).err, /No endpoint \/nowhere/)
  })

  describe('progress of seed', () => {
    const seed = (command: string[]) =>
      spawnSync(command[0], command.slice(1), {
        cwd: ROOT,
        env: { ...process.env, QUARRY_DATA_DIR: dir },
        encoding: 'utf8',
        timeout: 120_000,
      })
    const seedArgs = [
      '--import',
      'tsx',
      path.join(ROOT, 'server', 'admin', 'cli.ts'),
      'seed',
      '--project',
      'shop',
      '--events',
      '1000',
      '--days',
      '2',
    ]

    it('prints plain lines (first and last) when stderr is not a terminal, and the result on stdout', () => {
      const child = seed([process.execPath, ...seedArgs])
      assert.equal(child.status, 0, child.stderr)
      assert.match(
        child.stdout,
        /^seeded 1000 events into "shop" in [\d.]+ s\ncompacted \d+ session\(s\) of \d+ settled day\(s\), dropped \d+ replaced compaction\(s\), rewriting \d+ month\(s\) without them, in [\d.]+ s\n$/,
      )
      const lines = child.stderr.split('\n').filter((line) => line.startsWith('seed'))
      assert.equal(lines[0], 'seed 0% | 0/1,000 rows | 0 rows/s | ETA ?')
      assert.match(lines[lines.length - 1], /^seed 100% \| 1,000\/1,000 rows \| [\d,]+ rows\/s \| done in \d+s$/)
      assert.doesNotMatch(child.stderr, /\x1b\[/, 'no terminal escape codes in a pipe')
    })

    it('draws a bar with rows, rows/s and the ETA on a terminal', function () {
      if (spawnSync('script', ['--version']).status !== 0) this.skip()
      const command = [process.execPath, ...seedArgs].map((part) => `'${part}'`).join(' ')
      const child = seed(['script', '-qfec', command, '/dev/null'])
      assert.equal(child.status, 0, child.stdout)
      assert.match(child.stdout, /\x1b\[/, 'terminal control codes')
      assert.match(child.stdout, /seed [█░]{24} 0% \| 0\/1,000 rows \| 0 rows\/s \| ETA \?/)
      assert.match(child.stdout, /seed █{24} 100% \| 1,000\/1,000 rows \| [\d,]+ rows\/s \| done in \d+s/)
    })
  })

  it('fails clearly while another process holds the data directory', async () => {
    const h = await startHarness()
    try {
      const child = spawnSync(
        process.execPath,
        [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'server', 'admin', 'cli.ts'), 'project', 'list'],
        {
          env: { ...process.env, QUARRY_DATA_DIR: h.dir },
          encoding: 'utf8',
          timeout: 60_000,
        },
      )
      assert.equal(child.status, 1)
      assert.match(child.stderr, /in use by another Quarry process/)
      assert.doesNotMatch(child.stderr, /at .*\.ts:\d+/, 'no stack trace')
      assert.doesNotMatch(child.stderr, /DB::Exception|Code: 76/, "no engine line before Quarry's")
      const explained = spawnSync(
        process.execPath,
        [
          path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
          path.join(ROOT, 'server', 'admin', 'cli.ts'),
          'explain',
          '/insights/shop/metrics',
        ],
        {
          env: { ...process.env, QUARRY_DATA_DIR: h.dir },
          encoding: 'utf8',
          timeout: 60_000,
        },
      )
      assert.equal(explained.status, 1)
      const lines = explained.stderr.split('\n').filter(Boolean)
      assert.equal(lines.length, 1, explained.stderr)
      assert.match(lines[0], /^quarry: The data directory .* is in use by another Quarry process.*--timezone/)
    } finally {
      await h.close()
    }
  })
})
