// What a settled check's rows give a session statement compiled with them: the settled days with their compactions, and
// the range of partial rows the other days are regrouped from (hand-computed here).
import assert from 'node:assert/strict'
import { settledParams } from '../../queries/sessions/settled-days'
import { metrics } from '../../queries/insights/metrics'

const DAYS = { firstDay: '2024-03-01', lastDay: '2024-03-05', lookbackSeconds: 7_200 }
const settled = (...days: string[]) => days.map((day, index) => ({ day, compaction: `${index + 1}9007199254740993` }))

describe('settled params', () => {
  it('regroups every day, from the lookback before the first to the lookback after the last, when none is settled', () => {
    assert.deepEqual(settledParams(DAYS, []), {
      settledDays: [],
      settledCompactions: [],
      regroupFrom: '2024-02-29 22:00:00.000',
      regroupTo: '2024-03-06 02:00:00.000',
    })
  })

  it('regroups from the first unsettled day to the last, a settled day between them included in the range', () => {
    const rows = settled('2024-03-01', '2024-03-02', '2024-03-04')
    assert.deepEqual(settledParams(DAYS, rows), {
      settledDays: ['2024-03-01', '2024-03-02', '2024-03-04'],
      settledCompactions: ['19007199254740993', '29007199254740993', '39007199254740993'],
      regroupFrom: '2024-03-02 22:00:00.000',
      regroupTo: '2024-03-06 02:00:00.000',
    })
  })

  it('regroups a lone unsettled first day with its lookbacks', () => {
    const rows = settled('2024-03-02', '2024-03-03', '2024-03-04', '2024-03-05')
    const { regroupFrom, regroupTo } = settledParams(DAYS, rows)
    assert.deepEqual([regroupFrom, regroupTo], ['2024-02-29 22:00:00.000', '2024-03-02 02:00:00.000'])
  })

  it('regroups nothing when every day is settled: an empty range', () => {
    const rows = settled('2024-03-01', '2024-03-02', '2024-03-03', '2024-03-04', '2024-03-05')
    const { regroupFrom, regroupTo } = settledParams(DAYS, rows)
    assert.equal(regroupFrom, regroupTo)
  })

  it("compiles a session question with its check's rows: the days and lookback the check binds", () => {
    const scope = {
      project: { id: 'shop', name: 'Shop', timezone: 'UTC' },
      now: new Date('2024-03-31T12:00:00Z'),
      sessionLookbackMs: 7_200_000,
    }
    const query = metrics.plan(metrics.parse({ startDate: '2024-03-01', endDate: '2024-03-05' }, scope))
    const check = metrics.settledCheck?.(query)
    assert.ok(check)
    assert.deepEqual(
      [check.params.firstDay, check.params.lastDay, check.params.lookbackSeconds],
      [DAYS.firstDay, DAYS.lastDay, DAYS.lookbackSeconds],
    )
    const bound = metrics.compile(query, settled('2024-03-05')).params
    assert.deepEqual([bound.firstDay, bound.lastDay], [DAYS.firstDay, DAYS.lastDay])
    assert.deepEqual(
      {
        settledDays: bound.settledDays,
        settledCompactions: bound.settledCompactions,
        regroupFrom: bound.regroupFrom,
        regroupTo: bound.regroupTo,
      },
      settledParams(DAYS, settled('2024-03-05')),
    )
    assert.deepEqual(metrics.compile(query).params, { ...bound, ...settledParams(DAYS, []) }, 'without rows no day is settled')
  })
})
