// The heavy lane (issue 40, item 9): a heavy question's statement carries its values as typed literals and
// runs beside the bound data statements at a low priority. Its rows must be the bound statement's rows, for
// every statement the routes compile, and a deadline must still stop it in the engine.
import assert from 'node:assert/strict'
import { withSettings, type CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { joinedStatementsOf, statementsOf } from '../../queries/run/statements'
import { Runner } from '../../queries/run/runner'
import { ROUTES, resourceOf } from '../../server/routes/routes'
import { HEAVY_PRIORITY } from '../../server/priorities'
import { EXAMPLE_QUERIES, examplesFor } from '../../server/routes/examples'
import { goldenEvents, startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
const NOW = new Date('2024-04-10T12:00:00Z')

/** Output as sorted lines (a row a line in every format the routes use): a statement without a total order may list equal rows in another order. */
const sortedLines = (text: string) => text.split('\n').sort()

describe('heavy lane', function () {
  this.timeout(300_000)
  let h: Harness

  before(async () => {
    ;({ h } = await startWithEvents(PROJECT, goldenEvents(PROJECT.id)))
  })
  after(() => h.close())

  it("returns the bound statement's rows for every statement of every route's example requests", async () => {
    const scope = { project: { ...PROJECT, name: PROJECT.id }, now: NOW, sessionLookbackMs: 30 * 60_000 }
    let compared = 0
    let answered = 0
    for (const route of ROUTES) {
      for (const query of examplesFor(route)) {
        for (const { label, compiled } of statementsOf(resourceOf(route), { ...query }, scope, false)) {
          if (!Object.keys(compiled.params).length) continue
          const bound = await h.runner.runText(compiled)
          const literal = await h.runner.runText(compiled, { lane: 'heavy' })
          if (bound.text.length) answered += 1
          assert.deepEqual(sortedLines(literal.text), sortedLines(bound.text), `${route.path}?${new URLSearchParams(query)}: ${label}`)
          compared += 1
        }
      }
    }
    for (const query of EXAMPLE_QUERIES) {
      const accepting = ROUTES.filter((route) => examplesFor(route).includes(query)).map(resourceOf)
      for (const { label, compiled } of joinedStatementsOf(accepting, query, scope)) {
        const bound = await h.runner.runText(compiled)
        const literal = await h.runner.runText(compiled, { lane: 'heavy' })
        assert.deepEqual(sortedLines(literal.text), sortedLines(bound.text), `?${new URLSearchParams(query)}: ${label}`)
        compared += 1
      }
    }
    assert.ok(compared > 100 && answered > 30, `only ${compared} statements compared, ${answered} of them with rows`)
  })

  it('renders quotes, backslashes and regex metacharacters in a value as the value', async () => {
    const values = ["it's", 'back\\slash', '\\', "'", '^/(a|b)+$', '{x:String}', '?']
    const query: CompiledQuery = {
      template: 'test.echo',
      sql: 'SELECT {v:String} AS v, {vs:Array(String)} AS vs',
      params: { v: values.join(''), vs: values },
    }
    const literal = await h.runner.run(query, { lane: 'heavy' })
    assert.deepEqual(literal.rows, [{ v: values.join(''), vs: values }])
  })

  it("runs read-only within the guardrails at HEAVY_PRIORITY, and a statement's own settings last for it alone", async () => {
    const settings: CompiledQuery = {
      template: 'test.settings',
      sql: "SELECT {x:UInt8} AS x, toUInt32(getSetting('priority')) AS priority, toString(getSetting('readonly')) AS readonly, toUInt64(getSetting('max_execution_time')) AS limit",
      params: { x: 1 },
    }
    assert.deepEqual((await h.runner.run(settings, { lane: 'heavy' })).rows, [
      { x: 1, priority: HEAVY_PRIORITY, readonly: '2', limit: h.config.maxExecutionSeconds },
    ])
    assert.deepEqual(
      (await h.runner.run<{ priority: number }>(withSettings(settings, { priority: 7 }), { lane: 'heavy' })).rows[0].priority,
      7,
    )
    assert.deepEqual(
      (await h.runner.run<{ priority: number }>(settings, { lane: 'heavy' })).rows[0].priority,
      HEAVY_PRIORITY,
      "the next statement runs at the lane's priority",
    )
    await assert.rejects(
      h.runner.run({ template: 'test.write', sql: 'CREATE TABLE through_heavy (x UInt8) ENGINE = Memory', params: {} }, { lane: 'heavy' }),
      /readonly/i,
    )
  })

  it('is stopped in the engine by its deadline, and runs beside a bound statement meanwhile', async () => {
    const stopped: { lane: string; overrunMs: number }[] = []
    const runner = new Runner({
      lanes: h.engine.openLanes(h.config),
      guardrails: h.config,
      maxQueued: 8,
      observer: { statementFinished: () => undefined, statementStopped: (statement) => stopped.push(statement) },
    })
    const endless: CompiledQuery = {
      template: 'test.endless',
      sql: "SELECT count() AS n FROM numbers({n:UInt64}) WHERE match(toString(number), '^(1|2|3)+7$')",
      params: { n: 1e12 },
    }
    const heavy = runner.run(endless, { lane: 'heavy', deadline: AbortSignal.timeout(1_500) })
    heavy.catch(() => undefined)
    const light = await runner.run({ template: 'test.light', sql: 'SELECT {x:UInt8} AS x', params: { x: 1 } })
    assert.deepEqual(light.rows, [{ x: 1 }], 'the bound statement answered while the heavy one ran')
    await assert.rejects(heavy, (error: unknown) => error instanceof QueryError && error.code === 'timeout')
    // Left alone, the statement would count for hours; the KILL stops it between two blocks.
    for (let waited = 0; !stopped.length && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(stopped.length, 1, 'the engine stopped the heavy statement')
    assert.equal(stopped[0].lane, 'heavy')
    assert.ok(stopped[0].overrunMs < 10_000, JSON.stringify(stopped[0]))
  })
})
