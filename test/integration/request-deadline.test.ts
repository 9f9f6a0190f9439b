// One time limit per request (issue 31, item 15): a session question's settled check and its statement,
// and an export page's statements and those that follow from them, share one deadline, so the request
// ends by one time limit rather than one per statement.
import assert from 'node:assert/strict'
import request from 'supertest'
import type { CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { Runner, type CompiledAtTurn, type RunOptions } from '../../queries/run/runner'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { goldenEvents, startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }

/** `runner`, noting the template and deadline of every statement handed to it. */
function noting(runner: Runner, seen: { template: string; deadline?: AbortSignal }[]): Runner {
  return new Proxy(runner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (property === 'runText')
          seen.push({
            template: (args[0] as CompiledQuery | CompiledAtTurn).template,
            deadline: (args[1] as RunOptions | undefined)?.deadline,
          })
        return value.apply(receiver, args)
      }
    },
  })
}

describe('one deadline per request', function () {
  this.timeout(60_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, goldenEvents(PROJECT.id)))
  })
  after(() => h.close())

  it('refuses a statement whose request has used up its time limit as a timeout, without running it', async () => {
    const finished: string[] = []
    const durations: number[] = []
    const statement: CompiledQuery = { template: 'test.after-deadline', sql: 'SELECT 1 AS x', params: {} }
    const observer = {
      statementFinished: (event: { outcome: string; durationMs: number }) => {
        finished.push(event.outcome)
        durations.push(event.durationMs)
      },
    }
    const runner = new Runner({ lanes: h.engine.openLanes(h.config), guardrails: h.config, maxQueued: 8, observer })
    await assert.rejects(
      runner.run(statement, { deadline: AbortSignal.abort() }),
      (error: unknown) => error instanceof QueryError && error.code === 'timeout',
    )
    assert.deepEqual(finished, ['timeout'])
    assert.deepEqual(durations, [0], 'a statement that never had its turn ran for no time')
    assert.deepEqual(
      (await runner.run(statement, { deadline: runner.requestDeadline() })).rows,
      [{ x: 1 }],
      'a deadline not yet passed lets it run',
    )
  })

  it('reports a statement given up while it ran once the engine has stopped it, with how long it went on', async () => {
    const events: string[] = []
    const stopped: { template: string; lane: string; ranMs: number; overrunMs: number }[] = []
    const observer = {
      statementFinished: (event: { template: string; outcome: string }) => events.push(`finished ${event.outcome}`),
      statementStopped: (statement: { template: string; lane: string; ranMs: number; overrunMs: number }) => {
        events.push('stopped')
        stopped.push(statement)
      },
    }
    const runner = new Runner({ lanes: h.engine.openLanes(h.config), guardrails: h.config, maxQueued: 8, observer })
    const endless: CompiledQuery = {
      template: 'test.endless',
      sql: "SELECT count() AS n FROM numbers({n:UInt64}) WHERE match(toString(number), '^(1|2|3)+7$')",
      params: { n: 1e12 },
    }
    await assert.rejects(
      runner.run(endless, { deadline: AbortSignal.timeout(300) }),
      (error: unknown) => error instanceof QueryError && error.code === 'timeout',
    )
    await runner.run({ template: 'test.after', sql: 'SELECT 1 AS x', params: {} })
    assert.deepEqual(
      events,
      ['finished timeout', 'stopped', 'finished ok'],
      'the next statement had its turn only after the engine stopped the one given up',
    )
    assert.equal(stopped[0].template, 'test.endless')
    assert.equal(stopped[0].lane, 'data')
    assert.ok(stopped[0].overrunMs >= 0 && stopped[0].ranMs >= 300 + stopped[0].overrunMs - 50, JSON.stringify(stopped[0]))

    const quiet: string[] = []
    const noTurn = new Runner({
      lanes: h.engine.openLanes(h.config),
      guardrails: h.config,
      maxQueued: 8,
      observer: { statementFinished: () => undefined, statementStopped: () => quiet.push('stopped') },
    })
    await assert.rejects(noTurn.run(endless, { deadline: AbortSignal.abort() }))
    assert.deepEqual(quiet, [], 'a statement that never had its turn has nothing to stop')
  })

  it("gives a session question's settled check and its statement the same deadline", async () => {
    const seen: { template: string; deadline?: AbortSignal }[] = []
    const app = createApp({ config: h.config, runner: noting(h.runner, seen), directory: h.directory, logger: createLogger('error', true) })
    const res = await request(app)
      .get(`/insights/${PROJECT.id}/metrics?startDate=2024-03-27&endDate=2024-04-02`)
      .set({ ...auth, 'cache-control': 'no-cache' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(
      seen.map((statement) => statement.template),
      ['insights.settled_days', 'insights.metrics'],
    )
    assert.ok(seen[0].deadline instanceof AbortSignal, 'the check runs under the request deadline')
    assert.equal(seen[1].deadline, seen[0].deadline, 'the statement shares it')
  })

  it("gives an export page's statements and those that follow from them the same deadline", async () => {
    const seen: { template: string; deadline?: AbortSignal }[] = []
    const app = createApp({ config: h.config, runner: noting(h.runner, seen), directory: h.directory, logger: createLogger('error', true) })
    const res = await request(app).get(`/export/events?projectId=${PROJECT.id}&limit=5&includes=profile`).set(auth)
    assert.equal(res.status, 200, res.text)
    assert.ok(seen.length >= 2, JSON.stringify(seen.map((statement) => statement.template)))
    assert.ok(seen[0].deadline instanceof AbortSignal)
    assert.ok(
      seen.every((statement) => statement.deadline === seen[0].deadline),
      JSON.stringify(seen.map((statement) => statement.template)),
    )
  })
})
