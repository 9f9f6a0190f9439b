// A funnel folded step by step (any `*` step, or a name repeated) costs its steps times its window's days; past
// FOLD_STEP_DAYS_CAP it is a 400 that states the cost before anything runs (issue 40: a 12-month funnel of ten
// `*` steps ran into its time limit every time). Funnels of distinct named steps use windowFunnel and are not capped.
import assert from 'node:assert/strict'
import { funnel } from '../../queries/behaviour/funnel'
import { FOLD_STEP_DAYS_CAP } from '../../queries/behaviour/funnel-cost'
import { prepare } from '../../queries/core/pipeline'
import { SHOP_SCOPE, requestIssues } from '../support/request-issues'

const YEAR = { startDate: '2023-04-01', endDate: '2024-03-30' }
const steps = (names: string[]) => JSON.stringify(names)

describe('funnel fold cost', () => {
  it('refuses a 12-month funnel of ten * steps with a 400 at steps that states its cost and the cap', () => {
    const issues = requestIssues(funnel, { ...YEAR, steps: steps(Array(10).fill('*')) })
    assert.deepEqual(issues, [
      `steps: this funnel folds 10 steps over 365 days (3650 step-days), more than ${FOLD_STEP_DAYS_CAP}: narrow the window, use fewer steps, or give each step its own event name (distinct named steps are counted without folding)`,
    ])
  })

  it('refuses a name repeated over a year as it refuses *', () => {
    assert.equal(
      requestIssues(funnel, { ...YEAR, steps: steps(['screen_view', 'signup', 'screen_view', 'signup', 'screen_view', 'signup']) }).length,
      1,
    )
  })

  it('plans a 12-month funnel of three * steps, and a 30-day funnel of ten', () => {
    assert.equal(prepare(funnel, { ...YEAR, steps: steps(['*', 'screen_view', '*']) }, SHOP_SCOPE).query.engine, 'fold')
    assert.equal(
      prepare(funnel, { startDate: '2024-03-01', endDate: '2024-03-30', steps: steps(Array(10).fill('*')) }, SHOP_SCOPE).query.engine,
      'fold',
    )
  })

  it('does not cap a 12-month funnel of distinct named steps', () => {
    const names = ['screen_view', 'button_click', 'search', 'add_to_cart', 'purchase', 'signup']
    assert.equal(prepare(funnel, { ...YEAR, steps: steps(names) }, SHOP_SCOPE).query.engine, 'entries')
  })
})
