// The behaviour questions' parameters and cost caps, decided before anything runs, and their compiled
// statements' params: no engine.
import assert from 'node:assert/strict'
import { funnel, pickFunnelEngine, type FunnelQuery } from '../../queries/behaviour/funnel'
import { paths } from '../../queries/behaviour/paths'
import { chart } from '../../queries/charts/chart'
import { retention } from '../../queries/behaviour/retention'
import { prepare } from '../../queries/core/pipeline'
import { SHOP_SCOPE, requestIssues } from '../support/request-issues'

const json = (value: unknown) => JSON.stringify(value)

describe('behaviour parameters', () => {
  it('lists every problem of a funnel at once', () => {
    const issues = requestIssues(funnel, {
      steps: ['signup'],
      windowHours: '721',
      groupBy: 'device_id',
      breakdown: 'entry_path',
      breakdownLimit: '0',
      filters: json([{ name: 'entry_origin', operator: 'is', value: ['x'] }]),
    })
    assert.deepEqual(issues.sort(), [
      'breakdown: unknown breakdown "entry_path": an event field, a session attribute other than the entry page, or properties.<key>',
      'breakdownLimit: "breakdownLimit" must be >= 1',
      'filters.0.name: "entry_origin" describes sessions; steps and their filters read each event\'s own columns',
      'groupBy: "groupBy" must be one of: session_id, profile_id',
      'steps: a funnel has 2 to 10 steps, got 1',
      'windowHours: "windowHours" must be <= 720',
    ])
  })

  it('caps the steps of a funnel given as repeated values or as one JSON array', () => {
    assert.match(
      requestIssues(funnel, { steps: Array.from({ length: 11 }, () => 'a') }).join('\n'),
      /steps: "steps" must NOT have more than 10 items/,
    )
    assert.match(
      requestIssues(funnel, { steps: json(Array.from({ length: 11 }, () => 'a')) }).join('\n'),
      /a funnel has 2 to 10 steps, got 11/,
    )
    assert.deepEqual(
      requestIssues(funnel, {
        steps: json(['a', { name: 'b', filters: [{ name: 'colour', operator: 'is', value: ['x'] }] }, { nom: 'c' }]),
      })
        .map((issue) => issue.split(':')[0])
        .sort(),
      ['steps.1.filters.0.name', 'steps.2.name', 'steps.2.nom'],
    )
    assert.match(requestIssues(funnel, { steps: ['{"name":', 'b'] }).join('\n'), /steps\.0: the step is not valid JSON/)
  })

  it('caps the window at 370 days and retention at 24 periods and 400 cohorts', () => {
    const issues = requestIssues(retention, { startDate: '2023-01-01', endDate: '2024-03-01', period: 'day', periods: '25' })
    assert.deepEqual(issues.sort(), [
      'period: this window has 426 days, more than 400 cohorts: narrow the window or widen the period',
      'periods: "periods" must be <= 24',
      'startDate: the window may span at most 370 days for this question',
    ])
    assert.deepEqual(requestIssues(paths, { steps: '11', limit: '101', node: 'screen' }).sort(), [
      'limit: "limit" must be <= 100',
      'node: "node" must be one of: page, event',
      'steps: "steps" must be <= 10',
    ])
  })

  it('compiles a funnel with its steps, filters and breakdown bound as values', () => {
    const { compiled } = prepare(
      funnel,
      {
        steps: json([{ name: 'screen_view', filters: [{ name: 'path', operator: 'is', value: ['/pricing'] }] }, '*']),
        windowHours: '2',
        breakdown: 'properties.plan',
        filters: json([{ name: 'country', operator: 'is', value: ['DE'] }]),
        startDate: '2024-03-01',
        endDate: '2024-03-01',
      },
      SHOP_SCOPE,
    )
    assert.equal(compiled.template, 'behaviour.funnel')
    assert.deepEqual(compiled.params, {
      projectId: 'shop',
      start: '2024-02-29 23:00:00.000',
      end: '2024-03-01 23:00:00.000',
      readTo: '2024-03-02 01:00:00.000',
      windowMs: 7_200_000,
      stepCount: 2,
      breakdownLimit: 10,
      b_key: 'plan',
      s0_name: 'screen_view',
      s0_f0_v: ['/pricing'],
      f0_v: ['DE'],
    })
    assert.match(
      compiled.sql,
      /toUInt16\(if\(\(name = \{s0_name:String\} AND \(path IN \{s0_f0_v:Array\(String\)\}\) AND \(country IN \{f0_v:Array\(String\)\}\)\) AND created_at < \{end:DateTime64\(3, 'UTC'\)\}, 1, 0\) \+ if\(\(\(country IN \{f0_v:Array\(String\)\}\)\), 2, 0\)\)/,
    )
  })

  it('lets windowFunnel answer only funnels whose steps no event can match together, over the entering groups apart without a breakdown', () => {
    const country = { name: 'country', source: { kind: 'column', column: 'country' } }
    const table: [string[], boolean, string][] = [
      [['screen_view', 'add_to_cart', 'purchase'], false, 'entries'],
      [['screen_view', 'add_to_cart', 'purchase'], true, 'window'],
      [['screen_view', 'screen_view'], false, 'fold'],
      [['screen_view', 'screen_view'], true, 'fold'],
      [['screen_view', '*'], false, 'fold'],
      [['*', 'signup'], true, 'fold'],
      [['a', 'b', 'a'], false, 'fold'],
    ]
    for (const [names, byCountry, engine] of table) {
      const query = {
        steps: names.map((name) => ({ name, filters: [] })),
        ...(byCountry ? { breakdown: country } : {}),
      } as unknown as FunnelQuery
      assert.equal(pickFunnelEngine(query).engine, engine, `${names.join(', ')}${byCountry ? ' by country' : ''}`)
    }
    const plain = prepare(funnel, { steps: ['screen_view', 'purchase'] }, SHOP_SCOPE).compiled
    assert.equal(plain.template, 'behaviour.funnel_entries')
    assert.match(plain.sql, /windowFunnel\(\{windowMs:UInt64\}\)\(at, bitTest\(mask, 0\), bitTest\(mask, 1\)\)/)
    assert.deepEqual(Object.keys(plain.params).sort(), [
      'end',
      'projectId',
      'readTo',
      's0_name',
      's1_name',
      'start',
      'stepCount',
      'stepNames',
      'windowMs',
    ])
    const withBreakdown = prepare(funnel, { steps: ['screen_view', 'purchase'], breakdown: 'country' }, SHOP_SCOPE).compiled
    assert.equal(withBreakdown.template, 'behaviour.funnel_window')
    assert.match(
      withBreakdown.sql,
      /argMinIf\(label, bitOr\(bitShiftLeft\(toUInt256\(at\), 128\), toUInt256\(toUInt128\(id\)\)\), bitTest\(mask, 0\) = 1\) AS value/,
    )
  })

  it('reads retention returns up to the end of the period holding now, and no further than the last cohort needs', () => {
    const { compiled } = prepare(retention, { startDate: '2024-03-04', endDate: '2024-03-17', periods: '2' }, SHOP_SCOPE)
    assert.equal(compiled.params.readTo, '2024-03-31 22:00:00.000', 'the week of 11 March and two more: to Monday 1 April, Berlin midnight')
    assert.equal(compiled.params.returnsUntil, '2024-03-31 22:00:00.000', 'now (31 March) is in the week ending then')
  })
  it('refuses a filter tree where a flat list is taken, in one line naming where trees go', () => {
    const tree = json({ and: [{ name: 'path', operator: 'is', value: ['/'] }, { or: [{ name: 'name', operator: 'is', value: ['a'] }] }] })
    const treeLine =
      /^(filters|steps\.1\.filters|series\.0\.filters): "[\w.]+" is a filter tree, which is not accepted here: give a flat array of filters .* trees are taken by the filters of \/metrics, /
    const cases = [
      requestIssues(funnel, { steps: ['a', 'b'], filters: tree }),
      requestIssues(funnel, { steps: json(['a', { name: 'b', filters: JSON.parse(tree) }]) }),
      requestIssues(retention, { startEvent: 'a', returnEvent: 'b', filters: tree }),
      requestIssues(chart, { series: json([{ name: 'screen_view', segment: 'user', filters: JSON.parse(tree) }]) }),
    ]
    for (const issues of cases) {
      assert.equal(issues.length, 1, issues.join('\n'))
      assert.match(issues[0], treeLine)
    }
    const withOthers = requestIssues(chart, { series: json([{ name: 'screen_view', segment: 'nope', filters: JSON.parse(tree) }]) })
    assert.ok(
      withOthers.some((issue) => issue.startsWith('series.0.segment')),
      `the item's other problems are listed too: ${withOthers.join('; ')}`,
    )
  })
})
