// A compaction's statements carry the day under way (sql/admin/compaction-job.sql) as typed literals and
// bind nothing: embedded, a statement with bound parameters holds chDB's one process-wide chain of them, so
// a bound build would hold every data statement of the gateway behind it. One compaction at a time holds the
// lease (server/admin/compaction-lease.ts): two would share the staging tables; a run that finds its staged
// rows rewritten by another stops before attaching or recording anything.
import assert from 'node:assert/strict'
import { Session } from 'chdb'
import request from 'supertest'
import { compactDay, compactionOptions, compactSessions, scheduleCompaction } from '../../server/admin/compact'
import { LEASE_PROCESS, claimLease, readLease, releaseLease } from '../../server/admin/compaction-lease'
import { createProject } from '../../server/admin/control'
import type { CompiledQuery } from '../../queries/core/compiled'
import { BACKGROUND_PRIORITY, QUESTION_PRIORITY } from '../../server/priorities'
import { answerInsights } from '../reference/model'
import { goldenEvents, insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
/** The statements a day's compaction runs that read its whole read range or its staged rows. */
const HEAVY = [
  'admin.compact-count',
  'admin.compact-build',
  'admin.compact-views-build',
  'admin.compact-rollup-build',
  'admin.compact-session-rollup-build',
]
/** A run's checks that read a whole table, as many times as a run asks them (the replaced compactions: once a table). */
const WHOLE_TABLE = { 'admin.compact-stale-days': 1, 'admin.compact-superseded': 4 }

// A statement's settings are SET ahead of its text on the embedded connection, so its name need not lead.
const templateName = (sql: string) => /-- @name (\S+)/.exec(sql)?.[1]
const NOW = new Date('2024-04-10T00:00:00.000Z')
const WEEK = 'startDate=2024-03-27&endDate=2024-04-02'
const QUESTIONS = [
  `metrics?${WEEK}`,
  `pages?${WEEK}&limit=50`,
  `referrer?${WEEK}&limit=50`,
  `metrics?${WEEK}&interval=hour`,
  `country?${WEEK}&limit=50`,
]

describe('the compaction job', function () {
  this.timeout(120_000)
  let h: Harness
  let auth: Record<string, string>
  const expected = QUESTIONS.map((url) => {
    const [resource, queryString] = url.split('?')
    return answerInsights({
      events: goldenEvents(PROJECT.id),
      projectTimezone: PROJECT.timezone,
      resource,
      query: Object.fromEntries(new URLSearchParams(queryString)),
      now: NOW,
    })
  })

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: NOW })
    await createProject(h.engine, PROJECT)
    await insertRawEvents(h.engine, goldenEvents(PROJECT.id), PROJECT.id)
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  /** Asks every question once, fresh, against the reference model's answer; the urls that differ. `answered` follows each answer. */
  async function wrongAnswers(answered: () => void = () => undefined): Promise<string[]> {
    const wrong: string[] = []
    for (const [index, url] of QUESTIONS.entries()) {
      const res = await request(h.app)
        .get(`/insights/${PROJECT.id}/${url}`)
        .set({ ...auth, 'cache-control': 'no-cache' })
      answered()
      if (res.status !== expected[index].status || JSON.stringify(res.body) !== JSON.stringify(expected[index].body)) wrong.push(url)
    }
    return wrong
  }

  const compact = () => compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date() })
  const command = (query: string) => h.engine.client.command({ query })
  /** The one number a statement answers (as its only column). */
  async function numberOf(query: string): Promise<number> {
    const rows = await h.engine.client.query({ query, format: 'JSONEachRow' }).then((rs) => rs.json<Record<string, number | string>>())
    return Number(Object.values(rows[0] ?? {})[0] ?? 0)
  }

  it("runs a day's builds and count, and a run's whole-table checks, without bound parameters, outside chDB's chain of bound statements", async () => {
    const calls = { bound: [] as string[], unbound: [] as string[] }
    const { queryBindAsync, queryAsync } = Session.prototype
    Session.prototype.queryBindAsync = function (this: Session, ...args: Parameters<Session['queryBindAsync']>) {
      calls.bound.push(templateName(args[0]) ?? '')
      return queryBindAsync.apply(this, args)
    }
    Session.prototype.queryAsync = function (this: Session, ...args: Parameters<Session['queryAsync']>) {
      calls.unbound.push(templateName(args[0]) ?? '')
      return queryAsync.apply(this, args)
    }
    let days: number
    let sessions: number
    try {
      ;({ days, sessions } = await compact())
    } finally {
      Object.assign(Session.prototype, { queryBindAsync, queryAsync })
    }
    assert.ok(days > 0, 'some day was compacted')
    for (const name of HEAVY) {
      assert.equal(calls.unbound.filter((call) => call === name).length, days, `${name} ran once a day, unbound`)
      assert.ok(!calls.bound.includes(name), `${name} bound no parameter`)
    }
    for (const [name, times] of Object.entries(WHOLE_TABLE)) {
      assert.equal(calls.unbound.filter((call) => call === name).length, times, `${name} ran ${times} time(s), unbound`)
      assert.ok(!calls.bound.includes(name), `${name} bound no parameter`)
    }
    assert.ok((await numberOf('SELECT count() FROM sessions_settled')) > 0, 'the builds stored sessions')
    assert.equal(sessions, await numberOf('SELECT count() FROM sessions_settled'), 'the run reports the sessions it built')
  })

  /** How many times a statement paused for one of a higher priority in this process (server/priorities.ts). */
  const preempted = () => numberOf("SELECT value FROM system.events WHERE event = 'QueryPreempted'")

  it("asks questions at a priority above the compaction's reads", async () => {
    const { rows } = await h.runner.run<{ priority: number | string }>({
      template: 'test.priority',
      sql: "SELECT getSetting('priority') AS priority",
      params: {},
    })
    assert.equal(Number(rows[0].priority), QUESTION_PRIORITY)
    assert.ok(QUESTION_PRIORITY > 0 && QUESTION_PRIORITY < BACKGROUND_PRIORITY, 'a priority of 0 would take no part')
  })

  it('answers exactly while a compaction builds beside the questions, which pause it', async () => {
    const pausedBefore = await preempted()
    const building = { now: 0, answeredDuring: 0 }
    const { queryAsync } = Session.prototype
    Session.prototype.queryAsync = function (this: Session, ...args: Parameters<Session['queryAsync']>) {
      if (!HEAVY.includes(templateName(args[0]) ?? '')) return queryAsync.apply(this, args)
      building.now += 1
      return queryAsync.apply(this, args).finally(() => (building.now -= 1))
    }
    const mismatches: string[] = []
    let answered = 0
    try {
      // Every day compacted again, with questions asked all the while, until some were answered during a build.
      for (let round = 0; round < 5 && building.answeredDuring === 0; round += 1) {
        await command('TRUNCATE TABLE session_compactions')
        let done = false
        const compaction = compact().finally(() => (done = true))
        while (!done) {
          mismatches.push(
            ...(await wrongAnswers(() => {
              answered += 1
              if (building.now > 0) building.answeredDuring += 1
            })),
          )
        }
        assert.ok((await compaction).days > 0, 'some day was compacted')
      }
    } finally {
      Session.prototype.queryAsync = queryAsync
    }
    assert.ok(building.answeredDuring > 0, `of ${answered} answers, none came while a build ran`)
    assert.deepEqual(mismatches, [], `${answered} answers, ${building.answeredDuring} while a build ran`)
    assert.ok((await preempted()) > pausedBefore, 'a build paused while a question ran')
  })

  /** A run that takes the lease and compacts, after which every answer is still exact. */
  async function compactsExactly(): Promise<void> {
    const report = await compact()
    assert.equal(report.leaseHeldBy, undefined, JSON.stringify(report))
    assert.ok(report.days > 0, JSON.stringify(report))
    assert.deepEqual(await wrongAnswers(), [])
  }

  it('lets one of two compactions at once run, and tells the other which one holds the lease', async () => {
    await command('TRUNCATE TABLE session_compactions')
    const [first, second] = await Promise.all([compact(), compact()])
    const ran = [first, second].filter((report) => !report.leaseHeldBy)
    assert.equal(ran.length, 1, JSON.stringify([first, second]))
    assert.ok(ran[0].days > 0, 'the one that ran compacted')
    const refused = [first, second].find((report) => report.leaseHeldBy)!
    assert.match(refused.leaseHeldBy!, /^[0-9a-f-]{36}:[0-9a-f-]{36}$/)
    assert.equal(refused.days, 0)
    assert.deepEqual(await wrongAnswers(), [])
    assert.equal((await compact()).leaseHeldBy, undefined, 'both released the lease')
  })

  /** Claims the next generation for `holder`, as if at `agoSeconds` before now, bypassing the lease's checks. */
  const claimAs = (holder: string, agoSeconds: number) =>
    command(
      `INSERT INTO compaction_claims (generation, holder, claimed_at) SELECT max(generation) + 1, '${holder}', now64(3) - INTERVAL ${agoSeconds} SECOND FROM compaction_claims`,
    )

  it('waits while a holder that has not ended claimed or logged within the hour, and not for one that did before', async () => {
    await command('TRUNCATE TABLE session_compactions')
    // Holders of this process: embedded, those of any other process are ended first (the next test).
    const [gone, busy] = [`${LEASE_PROCESS}gone`, `${LEASE_PROCESS}busy`]
    await claimAs(gone, 7_200)
    assert.equal((await compact()).leaseHeldBy, undefined, 'a claim two hours old with nothing logged since has lapsed')
    await command('TRUNCATE TABLE session_compactions')
    await claimAs(busy, 7_200)
    await command(`INSERT INTO compaction_lease (holder, taken_at) VALUES ('${busy}', now64(3) - INTERVAL 10 MINUTE)`)
    const waiting = await compact()
    assert.equal(waiting.leaseHeldBy, busy, JSON.stringify(waiting))
    assert.equal(waiting.days, 0)
    await command(`INSERT INTO compaction_lease (holder, released) VALUES ('${busy}', 1)`)
    await compactsExactly()
  })

  it('embedded, does not wait for a run of another process, which died with it', async () => {
    await command('TRUNCATE TABLE session_compactions')
    await claimAs('earlier-process:run', 60)
    await compactsExactly()
  })

  it('lets one claim of a generation hold the lease: a contender that read the lease free before another claimed it does not', async () => {
    const seen = await readLease(h.engine)
    assert.equal(seen.live, 0)
    const [first, second] = [await claimLease(h.engine, seen), await claimLease(h.engine, seen)]
    assert.ok('lease' in first, JSON.stringify(first))
    assert.ok('heldBy' in second && second.heldBy === first.lease.holder, JSON.stringify(second))
    await releaseLease(h.engine, first.lease)
  })

  it('stops before attaching a build once another compaction holds the lease, and records nothing', async () => {
    await command('TRUNCATE TABLE session_compactions')
    // A newer claim of another holder appears while the first build runs (on a session of its own: the
    // writable connection is busy with the compaction's statements).
    const side = new Session(h.dir)
    const intruder = `${LEASE_PROCESS}intruder`
    const { queryAsync } = Session.prototype
    let intruded = false
    Session.prototype.queryAsync = function (this: Session, ...args: Parameters<Session['queryAsync']>) {
      if (!intruded && templateName(args[0]) === 'admin.compact-build') {
        intruded = true
        const claim = `INSERT INTO compaction_claims (generation, holder) SELECT max(generation) + 1, '${intruder}' FROM compaction_claims`
        return queryAsync.apply(side, [claim]).then(() => queryAsync.apply(this, args))
      }
      return queryAsync.apply(this, args)
    }
    try {
      await assert.rejects(compact(), /lost its lease to .*intruder/)
    } finally {
      Session.prototype.queryAsync = queryAsync
      side.close()
    }
    assert.equal(await numberOf('SELECT count() FROM session_compactions'), 0, 'no day recorded')
    assert.deepEqual(await wrongAnswers(), [])
    await command(`INSERT INTO compaction_lease (holder, released) VALUES ('${intruder}', 1)`)
    await compactsExactly()
  })

  it('stops before attaching rows another run built once it rewrote the staging table: no compaction is recorded without its rows', async () => {
    await command('TRUNCATE TABLE session_compactions')
    const claim = await claimLease(h.engine)
    assert.ok('lease' in claim)
    const day = new Date('2024-03-28T00:00:00Z')
    const { lookbackMs } = compactionOptions(h.config)
    // Two runs that both believe they hold the lease (as two gateways could before claims were atomic):
    // the second runs its whole day while the first's first build is done.
    const admin = h.engine.admin
    let interleaved = false
    const first = {
      ...h.engine,
      admin: Object.assign(Object.create(admin) as typeof admin, {
        async command(query: CompiledQuery) {
          await admin.command(query)
          if (!interleaved && query.template === 'admin.compact-build') {
            interleaved = true
            await compactDay(h.engine, day, lookbackMs, claim.lease)
          }
        },
      }),
    }
    try {
      await assert.rejects(compactDay(first, day, lookbackMs, claim.lease), /holds rows of another job/)
    } finally {
      await releaseLease(h.engine, claim.lease)
    }
    const withoutRows = await numberOf(
      `SELECT count() FROM (SELECT day, compaction FROM session_compactions FINAL WHERE partial_rows > 0)
       WHERE (day, compaction) NOT IN (SELECT day, compaction FROM sessions_settled)`,
    )
    assert.equal(withoutRows, 0, 'a recorded compaction has no rows')
    assert.equal(await numberOf('SELECT count() FROM session_compactions FINAL'), 1, "the second run's day is recorded")
    assert.deepEqual(await wrongAnswers(), [])
  })

  it('never queues runs behind a long one: a tick while a run is under way is skipped', async () => {
    let runs = 0
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const admin = h.engine.admin
    const slow = {
      ...h.engine,
      admin: Object.assign(Object.create(admin) as typeof admin, {
        async command(query: CompiledQuery) {
          if (query.template === 'admin.compact-lease-claim') {
            runs += 1
            await held
          }
          await admin.command(query)
        },
      }),
    }
    const timer = scheduleCompaction(slow, {
      ...compactionOptions(h.config),
      everyMs: 20,
      onRun: () => undefined,
      onError: (error) => assert.fail(String(error)),
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    release()
    await timer.stop()
    assert.equal(runs, 1, 'the ticks during the held run started nothing after it')
  })
})
