// What a settled check's rows bind into a session statement: the settled days with their compactions, and
// the range of partial rows the other days are regrouped from (hand-computed here).
import assert from 'node:assert/strict'
import type { CompiledQuery } from '../../queries/core/compiled'
import { bindCheckRows, settledParams } from '../../queries/core/settled-days'

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

  it("binds into a statement from its check's days and lookback, and refuses a statement without a check", () => {
    const check: CompiledQuery = { template: 'insights.settled_days', sql: '', params: { projectId: 'shop', ...DAYS } }
    const statement: CompiledQuery = { template: 'insights.metrics', sql: '', params: { projectId: 'shop', firstDay: DAYS.firstDay, lastDay: DAYS.lastDay } }
    const bound = bindCheckRows({ ...statement, settledCheck: check }, settled('2024-03-05'))
    assert.deepEqual(bound.params, {
      projectId: 'shop',
      firstDay: DAYS.firstDay,
      lastDay: DAYS.lastDay,
      settledDays: ['2024-03-05'],
      settledCompactions: ['19007199254740993'],
      regroupFrom: '2024-02-29 22:00:00.000',
      regroupTo: '2024-03-05 02:00:00.000',
    })
    assert.throws(() => bindCheckRows(statement, []), /insights\.metrics has no settled check/)
  })
})
