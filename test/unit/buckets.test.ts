// A window's buckets as the shaping reads them: their starts, epoch seconds and printed dates, listed once
// per window, interval and zone and then kept for the next request.
import assert from 'node:assert/strict'
import { buckets } from '../../queries/core/dates'

describe('buckets', () => {
  const autumn = { start: new Date('2024-10-26T22:00:00Z'), end: new Date('2024-10-27T23:00:00Z') }

  it('lists the hours of the Berlin DST change, printed with the offset at each', () => {
    const listed = buckets(autumn, 'hour', 'Europe/Berlin')
    assert.equal(listed.length, 25)
    assert.deepEqual(
      listed.slice(0, 4).map((bucket) => bucket.date),
      ['2024-10-27T00:00:00.000+02:00', '2024-10-27T01:00:00.000+02:00', '2024-10-27T02:00:00.000+02:00', '2024-10-27T02:00:00.000+01:00'],
    )
    assert.equal(listed[24].date, '2024-10-27T23:00:00.000+01:00')
    assert.deepEqual(
      listed.slice(0, 4).map((bucket) => bucket.seconds),
      [1729980000, 1729983600, 1729987200, 1729990800],
    )
    for (const bucket of listed) assert.equal(bucket.seconds * 1000, bucket.start.getTime())
  })

  it('answers the same window again from what it listed, and another zone or interval anew', () => {
    const first = buckets(autumn, 'hour', 'Europe/Berlin')
    assert.equal(buckets({ start: new Date(autumn.start), end: new Date(autumn.end) }, 'hour', 'Europe/Berlin'), first)
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first[0]))
    const utc = buckets(autumn, 'hour', 'UTC')
    assert.equal(utc.length, 25)
    assert.equal(utc[0].date, '2024-10-26T22:00:00.000+00:00')
    assert.deepEqual(
      buckets(autumn, 'day', 'Europe/Berlin').map((bucket) => bucket.date),
      ['2024-10-27T00:00:00.000+02:00'],
    )
  })
})
