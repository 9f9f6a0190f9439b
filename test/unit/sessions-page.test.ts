// A sessions list's page as the sessions wing assembles it (queries/sessions/sessions-page.ts): with every day up
// to the keyset settled, no partial row is regrouped, and the statement binds only what it reads.
import assert from 'node:assert/strict'
import { sessionsList } from '../../queries/insights/sessions-list'
import type { Scope } from '../../queries/core/pipeline'

const scope: Scope = {
  project: { id: 'shop', name: 'Shop', timezone: 'UTC' },
  now: new Date('2024-03-31T12:00:00Z'),
  sessionLookbackMs: 3_600_000,
}

const compile = (raw: Record<string, unknown>, days: string[]) => {
  const query = sessionsList.plan(sessionsList.parse(raw, scope))
  return sessionsList.compile(
    query,
    days.map((day, index) => ({ day, compaction: String(index + 1) })),
  )
}

describe('sessions list page', () => {
  const window = { startDate: '2024-03-24', endDate: '2024-03-25' }

  it('reads the settled part alone when every day of the window is settled, binding no regrouped range', () => {
    const compiled = compile(window, ['2024-03-24', '2024-03-25'])
    assert.ok(!/\bFROM sessions\b/.test(compiled.sql), 'no partial rows read')
    const params = ['afterId', 'afterMs', 'end', 'firstDay', 'lastDay', 'projectId', 'rowsToRead', 'settledCompactions', 'start', 'tz']
    assert.deepEqual(Object.keys(compiled.params).sort(), params)
    assert.deepEqual(compiled.params.settledCompactions, ['1', '2'])
    assert.equal(compiled.params.rowsToRead, 21)
  })

  it('binds the read range too when a filter reads events, every day settled', () => {
    const filters = JSON.stringify([{ name: 'name', operator: 'is', value: ['purchase'] }])
    const compiled = compile({ ...window, filters }, ['2024-03-24', '2024-03-25'])
    assert.ok(compiled.sql.includes('SELECT DISTINCT session_id'))
    const params = [
      'afterId',
      'afterMs',
      'end',
      'f0_v',
      'firstDay',
      'lastDay',
      'projectId',
      'readFrom',
      'readTo',
      'rowsToRead',
      'settledCompactions',
      'start',
      'tz',
    ]
    assert.deepEqual(Object.keys(compiled.params).sort(), params)
  })

  it('regroups the days not settled, choosing their page first', () => {
    const compiled = compile(window, ['2024-03-24'])
    assert.ok(compiled.sql.includes(') AS newest'))
    assert.equal(compiled.params.regroupFrom, '2024-03-24 23:00:00.000')
    assert.equal(compiled.params.regroupTo, '2024-03-26 01:00:00.000')
  })
})
