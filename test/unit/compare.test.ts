// The compared window and `change`, worked by hand: `previous` in elapsed time, `year` in local calendar time
// (29 February, DST changes in Berlin and New York), and round2 of the change, halves away from zero.
import assert from 'node:assert/strict'
import { changesOf, comparedWindow, compareRows, keptKeysCondition, pointsChange, relativeChange } from '../../queries/core/compare'
import { DateTime } from 'luxon'

const window = (start: string, end: string) => ({ start: new Date(start), end: new Date(end) })
const iso = (compared: { start: Date; end: Date }) => [compared.start.toISOString(), compared.end.toISOString()]

describe('compare: the compared window', () => {
  it('previous is the window of equal length just before, in elapsed time', () => {
    // 7 Berlin days, 2024-03-25 to 2024-04-01 local: 167 hours (the spring change on the 31st).
    const week = window('2024-03-24T23:00:00Z', '2024-03-31T22:00:00Z')
    assert.deepEqual(iso(comparedWindow(week, 'Europe/Berlin', 'previous')), ['2024-03-18T00:00:00.000Z', '2024-03-24T23:00:00.000Z'])
  })

  it('year moves the local start and end back a calendar year, whatever the offsets', () => {
    // 2024-07-01 to 2024-08-01 Berlin (+02:00) -> 2023-07-01 to 2023-08-01 (+02:00).
    const july = window('2024-06-30T22:00:00Z', '2024-07-31T22:00:00Z')
    assert.deepEqual(iso(comparedWindow(july, 'Europe/Berlin', 'year')), ['2023-06-30T22:00:00.000Z', '2023-07-31T22:00:00.000Z'])
    // 2024-03-25 00:00 Berlin is +01:00; 2023-03-25 00:00 is +01:00 too, and 2024-04-01 (+02:00) -> 2023-04-01 (+02:00).
    const week = window('2024-03-24T23:00:00Z', '2024-03-31T22:00:00Z')
    assert.deepEqual(iso(comparedWindow(week, 'Europe/Berlin', 'year')), ['2023-03-24T23:00:00.000Z', '2023-03-31T22:00:00.000Z'])
  })

  it('year turns 29 February into 28 February', () => {
    const leapDay = window('2024-02-29T05:00:00Z', '2024-03-01T05:00:00Z') // New York local days (-05:00)
    assert.deepEqual(iso(comparedWindow(leapDay, 'America/New_York', 'year')), ['2023-02-28T05:00:00.000Z', '2023-03-01T05:00:00.000Z'])
  })

  it('year resolves a local time that does not exist as a parsed local time is resolved', () => {
    // 2025-03-10 02:30 New York exists (EDT); 2024-03-10 02:30 does not (clocks went 02:00 -> 03:00).
    const start = new Date('2025-03-10T06:30:00Z')
    const compared = comparedWindow({ start, end: new Date('2025-03-11T06:30:00Z') }, 'America/New_York', 'year')
    assert.equal(compared.start.toISOString(), '2024-03-10T07:30:00.000Z') // 03:30 EDT: moved forward by the gap
    // The same local wall time read from text in that zone, as the window's dates are read, is that instant.
    assert.equal(DateTime.fromISO('2024-03-10T02:30', { zone: 'America/New_York' }).toJSDate().toISOString(), compared.start.toISOString())
  })

  it('year keeps a local time repeated at the autumn change on the same side of the compared day', () => {
    // 2024-11-03 00:00 New York (-04:00) to 2024-11-04 00:00 (-05:00): a 25-hour day; 2023-11-05 was one too, but
    // 2023-11-03 is a day of 24 hours.
    const day = window('2024-11-03T04:00:00Z', '2024-11-04T05:00:00Z')
    assert.deepEqual(iso(comparedWindow(day, 'America/New_York', 'year')), ['2023-11-03T04:00:00.000Z', '2023-11-04T04:00:00.000Z'])
  })
})

describe('compare: change', () => {
  it('counts, sums and durations change relatively, rounded half away from zero', () => {
    assert.equal(relativeChange(150, 100), 50)
    assert.equal(relativeChange(1, 3), -66.67) // -66.666...
    assert.equal(relativeChange(2, 3), -33.33) // -33.333...
    assert.equal(relativeChange(1, 8), -87.5)
    assert.equal(relativeChange(10001, 80000), -87.5) // -87.49875 -> -87.5
    assert.equal(relativeChange(1.5, 2), -25)
    assert.equal(relativeChange(201, 200), 0.5)
    // 100 x (3 - 16) / 16 = -81.25 exactly; 100 x (1.01 - 1.6) / 1.6 = -36.875 -> -36.88 (a half, away from zero)
    assert.equal(relativeChange(1.01, 1.6), -36.88)
    assert.equal(relativeChange(2.19, 1.6), 36.88) // +36.875 -> 36.88
    assert.equal(relativeChange(5, 5), 0)
  })

  it('a relative change is null when before is 0 or null, or now is null', () => {
    assert.equal(relativeChange(5, 0), null)
    assert.equal(relativeChange(5, null), null)
    assert.equal(relativeChange(null, 5), null)
    assert.equal(relativeChange(0, 5), -100)
  })

  it('rates change in points, null when before is null', () => {
    assert.equal(pointsChange(33.33, 50), -16.67)
    assert.equal(pointsChange(0.1, 0.2), -0.1) // not -0.1 + float noise
    assert.equal(pointsChange(50, null), null)
    assert.equal(pointsChange(0, 0), 0)
  })

  it('picks points for the rates and a relative change for every other field', () => {
    const now = { sessions: 30, bounce_rate: 40, avg_session_duration: 12.5, exit_rate: 25, conversionRateFromStart: 50 }
    const before = { sessions: 20, bounce_rate: 50, avg_session_duration: 10, exit_rate: 20, conversionRateFromStart: 100 }
    assert.deepEqual(changesOf(now, before, Object.keys(now)), {
      sessions: 50,
      bounce_rate: -10,
      avg_session_duration: 25,
      exit_rate: 5,
      conversionRateFromStart: -50,
    })
  })

  it("a list row gets its key's figures from the compared rows, or null when the key has none there", () => {
    const rows = [
      { name: 'google', sessions: 3, bounce_rate: 0 },
      { name: null, sessions: 1, bounce_rate: 100 },
    ]
    const previous = [{ name: 'google', sessions: 4, bounce_rate: 25, extra: 'x' }]
    const merged = compareRows({ rows, previous, keyOf: (row) => JSON.stringify([row.name]), fields: ['sessions', 'bounce_rate'] })
    assert.deepEqual(merged, [
      {
        name: 'google',
        sessions: 3,
        bounce_rate: 0,
        previous: { sessions: 4, bounce_rate: 25 },
        change: { sessions: -25, bounce_rate: -25 },
      },
      { name: null, sessions: 1, bounce_rate: 100, previous: null, change: { sessions: null, bounce_rate: null } },
    ])
  })
})

describe('compare: the kept keys as SQL', () => {
  it('binds one array per column and matches a pair as a pair', () => {
    const kept = {
      of: 'region',
      keys: [
        ['DE', 'BY'],
        ['FR', ''],
      ],
    }
    assert.deepEqual(keptKeysCondition(kept, ['prefix_value', 'name_value'], 'HAVING'), {
      sql: 'HAVING (toString(prefix_value), toString(name_value)) IN arrayZip({kept0:Array(String)}, {kept1:Array(String)})',
      params: { kept0: ['DE', 'FR'], kept1: ['BY', ''] },
    })
  })

  it('matches one column against its array, and is nothing without kept keys', () => {
    assert.deepEqual(keptKeysCondition({ of: 'events/names', keys: [['signup']] }, ['name'], 'HAVING'), {
      sql: 'HAVING toString(name) IN {kept0:Array(String)}',
      params: { kept0: ['signup'] },
    })
    assert.deepEqual(keptKeysCondition(undefined, ['name'], 'HAVING'), { sql: '', params: {} })
  })
})
