// The migrations are squashed into a baseline (001_source_tables, 002_derived_tables). A data directory from
// before it that applied every earlier migration is upgraded by rebuilding its derived tables, and answers as
// the reference model before and after its days are compacted again; one that missed a migration is refused
// with how to re-import it. A changed definition of the derived tables rebuilds them the same way.
import assert from 'node:assert/strict'
import request from 'supertest'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createProject } from '../../server/admin/control'
import { LEGACY_MIGRATIONS, LegacySchemaError, listMigrations, migrate, pendingMigrations, recordedName } from '../../server/admin/migrate'
import { answerInsights } from '../reference/model'
import { goldenEvents, insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
const NOW = new Date('2024-04-10T00:00:00.000Z')
const WEEK = 'startDate=2024-03-27&endDate=2024-04-02'
const REQUESTS = [`metrics?${WEEK}`, `country?${WEEK}`, `pages?${WEEK}&limit=50`]
const DERIVED = recordedName(
  listMigrations().find((migration) => migration.name === '002_derived_tables') ?? assert.fail('no derived migration'),
)
/** Migrations numbered after the baseline's two, which a directory from before the baseline has not applied either. */
const AFTER_BASELINE = listMigrations()
  .map((migration) => migration.name)
  .filter((name) => name > '002_derived_tables')

describe('data directories from before the baseline, and derived tables of another definition', function () {
  this.timeout(180_000)
  let h: Harness
  let auth: Record<string, string>
  const events = goldenEvents(PROJECT.id)
  after(() => h?.close())

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    await createProject(h.engine, PROJECT)
    // Every multi-event session split over two inserts.
    await insertRawEvents(
      h.engine,
      events.filter((_, index) => index % 2 === 0),
      PROJECT.id,
    )
    await insertRawEvents(
      h.engine,
      events.filter((_, index) => index % 2 === 1),
      PROJECT.id,
    )
    auth = await rootHeaders(h.engine)
  })

  const command = (query: string) => h.engine.client.command({ query, clickhouse_settings: { mutations_sync: '2' } })
  async function numberOf(query: string): Promise<number> {
    const rows = await h.engine.client.query({ query, format: 'JSONEachRow' }).then((rs) => rs.json<Record<string, number | string>>())
    return Number(Object.values(rows[0] ?? {})[0] ?? 0)
  }
  /** The migrations recorded as applied replaced by `names`, as an earlier version would have left them. */
  async function recordOnly(names: readonly string[]): Promise<void> {
    await command('ALTER TABLE quarry_migrations DELETE WHERE 1')
    await command(
      `INSERT INTO quarry_migrations (name, applied_at) SELECT arrayJoin([${names.map((name) => `'${name}'`).join(', ')}]), now64(3)`,
    )
  }
  async function agrees(stage: string): Promise<void> {
    h.now = NOW
    for (const url of REQUESTS) {
      const [resource, queryString] = url.split('?')
      const expected = answerInsights({
        events,
        projectTimezone: PROJECT.timezone,
        resource,
        query: Object.fromEntries(new URLSearchParams(queryString)),
        now: NOW,
      })
      const res = await request(h.app)
        .get(`/insights/${PROJECT.id}/${url}`)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.equal(res.status, expected.status, `${stage}: ${url}`)
      assert.deepEqual(res.body, expected.body, `${stage}: ${url}`)
    }
  }
  const compact = () => compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date() })

  it('refuses a directory that missed a migration before the baseline, saying how to re-import it, and changes nothing', async () => {
    await recordOnly(LEGACY_MIGRATIONS.filter((name) => name !== '015_session_keys'))
    const refusal =
      /missing 015_session_keys.*Re-import it: with the earlier version, `npm run cli -- export --project ID --out FILE`.*`npm run cli -- import --project ID --file FILE`/
    await assert.rejects(migrate(h.engine), (error: Error) => error instanceof LegacySchemaError && refusal.test(error.message))
    await assert.rejects(pendingMigrations(h.engine), refusal)
    assert.equal(await numberOf('SELECT count() FROM quarry_migrations FINAL'), LEGACY_MIGRATIONS.length - 1, 'nothing recorded')
  })

  it('upgrades a directory that applied every migration before the baseline: its derived tables rebuilt, its answers exact', async () => {
    const report = await compact()
    assert.ok(report.days > 0, 'some days were compacted before the upgrade')
    // The directory as the last version before the baseline left it: its records, and a table the baseline no longer has.
    await recordOnly(LEGACY_MIGRATIONS)
    await command('CREATE TABLE compaction_job (day Date, compaction UInt64) ENGINE = MergeTree ORDER BY tuple()')
    // Migrations after the baseline (the discovery summaries) are new to it too.
    assert.deepEqual(await pendingMigrations(h.engine), ['001_source_tables', DERIVED, ...AFTER_BASELINE])

    assert.deepEqual(await migrate(h.engine), [DERIVED, ...AFTER_BASELINE])
    assert.deepEqual(await pendingMigrations(h.engine), [])
    assert.equal(
      await numberOf("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'compaction_job'"),
      0,
      'the legacy table is gone',
    )
    assert.equal(await numberOf('SELECT count() FROM sessions_settled'), 0, 'the combined tables were created anew')
    assert.equal(await numberOf('SELECT count() FROM session_compactions'), 0, 'and the records with them')
    assert.ok((await numberOf('SELECT count() FROM sessions')) > 0, 'the source tables kept their rows')
    await agrees('partial rows regrouped after the upgrade')
    const again = await compact()
    assert.equal(again.days, report.days, 'every day compacted again')
    await agrees(`${again.days} day(s) compacted again`)
    assert.deepEqual(await migrate(h.engine), [], 'a rerun applies nothing')
  })

  it('rebuilds the derived tables recorded under another definition', async () => {
    assert.ok((await numberOf('SELECT count() FROM session_compactions')) > 0)
    await command(`ALTER TABLE quarry_migrations DELETE WHERE name = '${DERIVED}'`)
    await command("INSERT INTO quarry_migrations (name, applied_at) VALUES ('002_derived_tables@0000000000000000', now64(3))")
    assert.deepEqual(await migrate(h.engine), [DERIVED])
    assert.equal(await numberOf('SELECT count() FROM session_compactions'), 0, 'every day is compacted again')
    await agrees('regrouped under the new definition')
    await compact()
    await agrees('compacted under the new definition')
  })
})
