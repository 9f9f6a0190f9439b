// A day compacted under another definition of the combined tables (here: before a breakdown was added, so
// its rollup holds nothing for it) is not read settled: the breakdown is answered exactly from partial rows,
// and the next compaction builds the day again under the current definition.
import assert from 'node:assert/strict'
import request from 'supertest'
import { breakdownTuples, definitionOf } from '../../queries/sessions/definition'
import { DIMENSIONS, type Dimension } from '../../queries/core/registry'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { answerInsights } from '../reference/model'
import { goldenEvents, startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
const NOW = new Date('2024-04-10T00:00:00.000Z')
// Whole days, no filters: the breakdown reads the session rollup for its settled days.
const URL = 'os_version?startDate=2024-03-27&endDate=2024-04-02&limit=50'

describe('a breakdown added after its days were compacted', function () {
  this.timeout(120_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, goldenEvents(PROJECT.id)))
  })
  after(() => h.close())

  const command = (query: string, params: Record<string, unknown> = {}) => h.engine.client.command({ query, query_params: params })
  const expected = () => {
    const [resource, queryString] = URL.split('?')
    return answerInsights({
      events: goldenEvents(PROJECT.id),
      projectTimezone: PROJECT.timezone,
      resource,
      query: Object.fromEntries(new URLSearchParams(queryString)),
      now: NOW,
    }).body
  }
  const ask = () =>
    request(h.app)
      .get(`/insights/${PROJECT.id}/${URL}`)
      .set({ ...auth, 'cache-control': 'no-cache' })

  it('answers it exactly from partial rows, then from the days compacted again', async () => {
    const first = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.ok(first.days > 0, JSON.stringify(first))
    // As an older gateway that did not know os_version compacted them: no rollup rows for it, its version.
    const older = definitionOf(breakdownTuples((Object.keys(DIMENSIONS) as Dimension[]).filter((name) => name !== 'os_version')))
    await command("ALTER TABLE session_rollup DELETE WHERE dimension = 'os_version' SETTINGS mutations_sync = 2")
    await command('ALTER TABLE session_compactions UPDATE definition = {older:UInt64} WHERE 1 SETTINGS mutations_sync = 2', { older })
    const before = await ask()
    assert.equal(before.status, 200, before.text)
    assert.deepEqual(before.body, expected(), 'read from partial rows, not from the rollup built without it')
    const again = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.equal(again.days, first.days, 'every day compacted under the older definition is compacted again')
    const after = await ask()
    assert.deepEqual(after.body, expected())
    const rollup = await h.engine.client
      .query({ query: "SELECT count() AS n FROM session_rollup WHERE dimension = 'os_version'", format: 'JSONEachRow' })
      .then((rs) => rs.json<{ n: string }>())
    assert.ok(Number(rollup[0].n) > 0, 'the days compacted again roll os_version up')
  })
})
