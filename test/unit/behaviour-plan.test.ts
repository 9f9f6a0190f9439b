// The behaviour questions follow the house (docs/design/pipeline.md): the plan compiles their steps and filters
// once, with the names their one statement binds them by, and compile places what the plan carries. Each test
// plans a request, checks the compiled conditions against hand-worked SQL, then swaps in other conditions and
// finds those, not the request's, in the statement. No engine.
import assert from 'node:assert/strict'
import { funnel } from '../../queries/behaviour/funnel'
import { paths } from '../../queries/behaviour/paths'
import { retention } from '../../queries/behaviour/retention'
import { SHOP_SCOPE } from '../support/request-issues'

const json = (value: unknown) => JSON.stringify(value)
const DE = { name: 'country', operator: 'is', value: ['DE'] }
const PRICING = { name: 'path', operator: 'is', value: ['/pricing'] }
/** A condition the plan did not compile from the request: `<name> = {<name>:String}`, bound to 'planned'. */
const planned = (name: string) => ({ sql: `${name} = {${name}:String}`, params: { [name]: 'planned' } })
const plannedSteps = { steps: [planned('p0'), planned('p1')], filterParams: {} }

describe('behaviour plans', () => {
  it('plans a funnel with each step compiled once, the filters ANDed in as SQL and their values bound once', () => {
    const query = funnel.plan(
      funnel.parse({ steps: json(['screen_view', { name: 'purchase', filters: [PRICING] }]), filters: json([DE]) }, SHOP_SCOPE),
    )
    assert.deepEqual(query.conditions, {
      steps: [
        { sql: '(name = {s0_name:String} AND (country IN {f0_v:Array(String)}))', params: { s0_name: 'screen_view' } },
        {
          sql: '(name = {s1_name:String} AND (path IN {s1_f0_v:Array(String)}) AND (country IN {f0_v:Array(String)}))',
          params: { s1_name: 'purchase', s1_f0_v: ['/pricing'] },
        },
      ],
      filterParams: { f0_v: ['DE'] },
    })
    const compiled = funnel.compile({ ...query, conditions: plannedSteps })
    assert.match(
      compiled.sql,
      /toUInt16\(if\(p0 = \{p0:String\} AND created_at < \{end:DateTime64\(3, 'UTC'\)\}, 1, 0\) \+ if\(p1 = \{p1:String\}, 2, 0\)\)/,
    )
    assert.equal(compiled.params.p0, 'planned')
    assert.ok(!('s0_name' in compiled.params) && !('f0_v' in compiled.params), 'compile compiles no step of its own')
  })

  it('plans retention with its start and return steps compiled once', () => {
    const query = retention.plan(retention.parse({ startEvent: 'signup', filters: json([DE]) }, SHOP_SCOPE))
    assert.deepEqual(query.conditions, {
      steps: [
        { sql: '(name = {start_name:String} AND (country IN {f0_v:Array(String)}))', params: { start_name: 'signup' } },
        { sql: '((country IN {f0_v:Array(String)}))', params: {} },
      ],
      filterParams: { f0_v: ['DE'] },
    })
    const compiled = retention.compile({ ...query, conditions: plannedSteps })
    assert.match(compiled.sql, /toUInt8\(p0 = \{p0:String\} AND created_at < \{end:DateTime64\(3, 'UTC'\)\}\) AS is_start/)
    assert.match(compiled.sql, /AND \(p0 = \{p0:String\} OR p1 = \{p1:String\}\)/)
    assert.ok(!('start_name' in compiled.params) && !('f0_v' in compiled.params), 'compile compiles no step of its own')
  })

  it('plans paths with its read range, its start step and the conditions its sessions pass, each compiled once', () => {
    const query = paths.plan(
      paths.parse({ start: 'signup', filters: json([DE, PRICING]), startDate: '2024-03-01', endDate: '2024-03-01' }, SHOP_SCOPE),
    )
    const readRange = [query.readFrom.toISOString(), query.readTo.toISOString()]
    assert.deepEqual(readRange, ['2024-02-28T23:00:00.000Z', '2024-03-02T23:00:00.000Z'], "a day's lookback around Berlin's 1 March")
    assert.deepEqual(query.startCondition, { sql: '(name = {start_name:String})', params: { start_name: 'signup' } })
    assert.deepEqual(query.sessions, {
      conditions: ['(s_country IN {f0_v:Array(String)})', 'countIf((path IN {f1_v:Array(String)})) > 0'],
      params: { f0_v: ['DE'], f1_v: ['/pricing'] },
      attributes: ['country'],
    })
    const tree = paths.plan(paths.parse({ filters: json({ or: [DE, { performed: { name: 'purchase' } }] }) }, SHOP_SCOPE))
    assert.equal(tree.startCondition, undefined)
    assert.equal(tree.sessions.conditions.length, 1, 'a tree is one condition over the grouped session')
    assert.deepEqual(tree.sessions.attributes, ['country'])
    const p1 = planned('p1')
    const compiled = paths.compile({
      ...query,
      startCondition: planned('p0'),
      sessions: { conditions: [p1.sql], params: p1.params, attributes: [] },
    })
    assert.match(compiled.sql, /\+ toUInt8\(p0 = \{p0:String\}\)\n/)
    assert.match(compiled.sql, /AND started_at < \{end:DateTime64\(3, 'UTC'\)\}\n\s+AND p1 = \{p1:String\}\n/)
    assert.ok(!('start_name' in compiled.params) && !('f0_v' in compiled.params), 'compile compiles no condition of its own')
  })
})
