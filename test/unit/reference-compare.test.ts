// Hand-worked examples for the compare reference (test/reference/compare.ts): compared windows across
// daylight-saving changes and 29 February, `change` and its rounding, rows joined by key, and whole
// compared answers of a breakdown, /metrics and /funnel derived by hand from docs/definitions.md.

import assert from 'node:assert/strict'
import { answerCompared, changeOf, comparedWindow, withPrevious } from '../reference/compare'
import type { RawEvent } from '../reference/model'
import { formatInstant } from '../reference/time'

/** The compared window of `[start, end)` (ISO instants), answered as ISO dates in `tz`. */
function compared(mode: 'previous' | 'year', tz: string, start: string, end: string): [string, string] {
  const w = comparedWindow(mode, { start: Date.parse(start), end: Date.parse(end) }, tz)
  return [formatInstant(tz, w.start), formatInstant(tz, w.end)]
}

let seq = 0
function ev(session: string, name: string, at: string, extra: Partial<RawEvent> = {}): RawEvent {
  seq += 1
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    name,
    device_id: `dev-${session}`,
    session_id: session,
    created_at: at,
    origin: 'https://a.com',
    path: '/',
    ...extra,
  }
}

describe('reference model of compare', () => {
  describe('the compared window', () => {
    it('previous: the same length just before, in instants, across a change to summer time', () => {
      // Berlin, 1 April 00:00 (+02:00, 2024-03-31T22:00Z) to 8 April: 7 × 24 h. Summer time began on
      // 31 March at 02:00, so 168 h before the start is 24 March 22:00Z = 23:00 (+01:00).
      assert.deepEqual(compared('previous', 'Europe/Berlin', '2024-03-31T22:00:00Z', '2024-04-07T22:00:00Z'), [
        '2024-03-24T23:00:00.000+01:00',
        '2024-04-01T00:00:00.000+02:00',
      ])
    })

    it('year: the local start and end one calendar year back, whatever their lengths', () => {
      // 31 March 2024 in Berlin is 23 hours (summer time began that night); in 2023 it began on 26 March,
      // so 31 March 2023 is a whole 24-hour day at +02:00.
      assert.deepEqual(compared('year', 'Europe/Berlin', '2024-03-30T23:00:00Z', '2024-03-31T22:00:00Z'), [
        '2023-03-31T00:00:00.000+02:00',
        '2023-04-01T00:00:00.000+02:00',
      ])
    })

    it('year: 29 February becomes 28 February', () => {
      // New York, 29 February 2024 (05:00Z) to 1 March 2024 -> 28 February 2023 to 1 March 2023.
      assert.deepEqual(compared('year', 'America/New_York', '2024-02-29T05:00:00Z', '2024-03-01T05:00:00Z'), [
        '2023-02-28T00:00:00.000-05:00',
        '2023-03-01T00:00:00.000-05:00',
      ])
    })

    it('year: a local time that does not exist moves forward by the gap, an ambiguous one is the earlier', () => {
      // 12 March 2024 02:30 EDT (06:30Z). On 12 March 2023 New York's clocks went from 02:00 to 03:00, so
      // 02:30 did not exist: read with the offset before the change (-05:00) it is 07:30Z, 03:30 EDT.
      // 4 November 2024 01:30 EST (06:30Z) -> 4 November 2023 01:30, still summer time (-04:00): the
      // change back was on 5 November 2023.
      assert.deepEqual(compared('year', 'America/New_York', '2024-03-12T06:30:00Z', '2024-11-04T06:30:00Z'), [
        '2023-03-12T03:30:00.000-04:00',
        '2023-11-04T01:30:00.000-04:00',
      ])
      // 3 November 2024 01:30 happens twice (EDT 05:30Z, then EST 06:30Z); 3 November 2023 01:30 once
      // (EDT): both map to it.
      assert.deepEqual(compared('year', 'America/New_York', '2024-11-03T06:30:00Z', '2024-11-03T07:30:00Z'), [
        '2023-11-03T01:30:00.000-04:00',
        '2023-11-03T02:30:00.000-04:00',
      ])
    })
  })

  describe('change', () => {
    it('a percentage of the value before for counts, sums and durations', () => {
      assert.equal(changeOf('sessions', 3, 2), 50)
      assert.equal(changeOf('sessions', 1, 3), -66.67) // -66.666...
      assert.equal(changeOf('sessions', 2, 3), -33.33) // -33.333...
      assert.equal(changeOf('avg_session_duration', 0, 12.5), -100)
      assert.equal(changeOf('sessions', 4, 4), 0)
    })

    it('rounds half away from zero on the values as answered, exactly', () => {
      // 100 × 0.01 / 40 = 0.025 exactly -> 0.03; floats give 40.01 − 40 = 0.00999999999999801 and 0.02.
      assert.equal(changeOf('avg_duration', 40.01, 40), 0.03)
      assert.equal(changeOf('avg_duration', 39.99, 40), -0.03)
      // 100 × 1 / 8 = 12.5 on hundredths: 8.01 vs 8 -> 0.125 -> 0.13; 7.99 -> -0.13.
      assert.equal(changeOf('views_per_session', 8.01, 8), 0.13)
      assert.equal(changeOf('views_per_session', 7.99, 8), -0.13)
    })

    it('a difference in points for rates', () => {
      assert.equal(changeOf('bounce_rate', 12.35, 10.1), 2.25)
      assert.equal(changeOf('bounce_rate', 0, 33.33), -33.33)
      assert.equal(changeOf('exit_rate', 50, 0), 50)
      assert.equal(changeOf('overallConversionRate', 66.67, 66.67), 0)
    })

    it('null when a value is null, and for a percentage when the value before is 0', () => {
      assert.equal(changeOf('sessions', 5, 0), null)
      assert.equal(changeOf('total_revenue', 0, 0), null)
      assert.equal(changeOf('bounce_rate', 40, null), null)
      assert.equal(changeOf('bounce_rate', null, 40), null)
      assert.equal(changeOf('avg_duration', null, 2), null)
    })
  })

  describe('withPrevious', () => {
    it('joins rows by key; previous null, each change null where the key has no row before', () => {
      const keyOf = (row: { name: string | null }) => JSON.stringify(row.name)
      const now = [
        { name: 'DE', sessions: 3, bounce_rate: 50 },
        { name: null, sessions: 2, bounce_rate: 0 },
        { name: 'FR', sessions: 1, bounce_rate: 100 },
      ]
      const before = [
        { name: 'US', sessions: 9, bounce_rate: 10 },
        { name: null, sessions: 4, bounce_rate: 25 },
        { name: 'DE', sessions: 2, bounce_rate: 75 },
      ]
      assert.deepEqual(withPrevious({ now, before, keyOf, fields: ['sessions', 'bounce_rate'] }), [
        {
          name: 'DE',
          sessions: 3,
          bounce_rate: 50,
          previous: { sessions: 2, bounce_rate: 75 },
          change: { sessions: 50, bounce_rate: -25 },
        },
        {
          name: null,
          sessions: 2,
          bounce_rate: 0,
          previous: { sessions: 4, bounce_rate: 25 },
          change: { sessions: -50, bounce_rate: -25 },
        },
        { name: 'FR', sessions: 1, bounce_rate: 100, previous: null, change: { sessions: null, bounce_rate: null } },
      ])
    })
  })

  describe('compared answers', () => {
    // UTC, window 10 March (a whole day); previous = 9 March; year = 10 March 2023.
    const events: RawEvent[] = [
      // 10 March: s1 DE, two views 30 s apart; s2 DE, one view (bounce); s3 FR, one view (bounce).
      ev('s1', 'screen_view', '2024-03-10T08:00:00.000Z', { country: 'DE' }),
      ev('s1', 'screen_view', '2024-03-10T08:00:30.000Z', { country: 'DE', path: '/b' }),
      ev('s2', 'screen_view', '2024-03-10T09:00:00.000Z', { country: 'DE' }),
      ev('s3', 'screen_view', '2024-03-10T10:00:00.000Z', { country: 'FR' }),
      // 9 March: s4 DE, one view (bounce), plus a signup 10 s later (duration 10 s).
      ev('s4', 'screen_view', '2024-03-09T23:59:50.000Z', { country: 'DE' }),
      ev('s4', 'signup', '2024-03-10T00:00:00.000Z', { country: 'DE' }),
      // 10 March 2023: s5 FR, two views 20 s apart.
      ev('s5', 'screen_view', '2023-03-10T12:00:00.000Z', { country: 'FR' }),
      ev('s5', 'screen_view', '2023-03-10T12:00:20.000Z', { country: 'FR', path: '/b' }),
    ]
    const ask = (resource: string, query: Record<string, string | string[]>) =>
      answerCompared({ events, projectTimezone: 'UTC', resource, query, now: new Date('2024-03-20T00:00:00Z') })
    const day = { startDate: '2024-03-10', endDate: '2024-03-10' }

    it('a breakdown, against the day before and the year before', () => {
      const previous = ask('country', { ...day, compare: 'previous' })
      assert.equal(previous.status, 200)
      // DE now: 2 sessions, 3 views, 1 bounce of 2 = 50 %, (30 + 0) / 2 = 15 s. Before: s4 alone, 1 view,
      // bounce 100 %, 10 s. Sessions +100 %, views +200 %, bounce -50 points, duration +50 %.
      // FR: no session on 9 March -> null.
      assert.deepEqual(previous.body, [
        {
          name: 'DE',
          sessions: 2,
          pageviews: 3,
          bounce_rate: 50,
          avg_session_duration: 15,
          previous: { sessions: 1, pageviews: 1, bounce_rate: 100, avg_session_duration: 10 },
          change: { sessions: 100, pageviews: 200, bounce_rate: -50, avg_session_duration: 50 },
        },
        {
          name: 'FR',
          sessions: 1,
          pageviews: 1,
          bounce_rate: 100,
          avg_session_duration: 0,
          previous: null,
          change: { sessions: null, pageviews: null, bounce_rate: null, avg_session_duration: null },
        },
      ])
      // The year before: FR had s5, 2 views, no bounce, 20 s; duration 0 vs 20 -> -100 %.
      const year = ask('country', { ...day, compare: 'year', limit: '1', cursor: '2' })
      assert.deepEqual(year.body, [
        {
          name: 'FR',
          sessions: 1,
          pageviews: 1,
          bounce_rate: 100,
          avg_session_duration: 0,
          previous: { sessions: 1, pageviews: 2, bounce_rate: 0, avg_session_duration: 20 },
          change: { sessions: 0, pageviews: -50, bounce_rate: 100, avg_session_duration: -100 },
        },
      ])
    })

    it('/metrics: totals and each bucket against the compared window bucketed from its own start', () => {
      // 10 March 06:00 to 12:00 by day; previous: 10 March 00:00 to 06:00.
      const answer = ask('metrics', {
        startDate: '2024-03-10T06:00:00Z',
        endDate: '2024-03-10T12:00:00Z',
        interval: 'day',
        compare: 'previous',
      })
      assert.equal(answer.status, 200)
      const body = answer.body as Record<string, any>
      // Now: s1, s2, s3 (3 sessions, 3 visitors, 2 bounces = 66.67 %, 30 s / 3 = 10 s, 4 views, 1.33 per
      // session). Before (00:00 to 06:00 on 10 March): no session starts there (s4 started on 9 March).
      assert.deepEqual(body.previous, {
        bounce_rate: 0,
        unique_visitors: 0,
        total_sessions: 0,
        avg_session_duration: 0,
        total_screen_views: 0,
        views_per_session: 0,
        total_revenue: 0,
      })
      assert.deepEqual(body.change, {
        bounce_rate: 66.67,
        unique_visitors: null,
        total_sessions: null,
        avg_session_duration: null,
        total_screen_views: null,
        views_per_session: null,
        total_revenue: null,
      })
      // One daily bucket each: 10 March now, 10 March (the day holding 00:00) before.
      assert.equal(body.series.length, 1)
      assert.equal(body.series[0].previous.date, '2024-03-10T00:00:00.000+00:00')
      assert.equal(body.series[0].change.bounce_rate, 66.67)
    })

    it('/metrics: a bucket past the compared window`s last is null', () => {
      // 28 February to 1 March 2024 (2 days: 28, 29 February) against 28 February to 1 March 2023 (1 day):
      // the second bucket has no compared bucket.
      const answer = ask('metrics', { startDate: '2024-02-28', endDate: '2024-02-29', interval: 'day', compare: 'year' })
      const body = answer.body as Record<string, any>
      assert.deepEqual(
        body.series.map((bucket: Record<string, any>) => [bucket.date, bucket.previous?.date ?? null]),
        [
          ['2024-02-28T00:00:00.000+00:00', '2023-02-28T00:00:00.000+00:00'],
          ['2024-02-29T00:00:00.000+00:00', null],
        ],
      )
      assert.ok(Object.values(body.series[1].change).every((value) => value === null))
    })

    it('/funnel: the whole funnel over the compared window', () => {
      // Steps screen_view then signup, per session. 10 March: s1, s2, s3 enter, none signs up. 9 March: s4
      // enters and signs up 10 s later (on 10 March: later steps may fall after the window).
      const answer = ask('funnel', { ...day, steps: ['screen_view', 'signup'], compare: 'previous' })
      assert.equal(answer.status, 200)
      const body = answer.body as Record<string, any>
      assert.deepEqual(body.previous, {
        steps: [
          { step: 1, eventName: 'screen_view', users: 1, conversionRateFromStart: 100, dropoffPercent: 0, isHighestDropoff: true },
          { step: 2, eventName: 'signup', users: 1, conversionRateFromStart: 100, dropoffPercent: null, isHighestDropoff: false },
        ],
        totalUsers: 1,
        completedUsers: 1,
        overallConversionRate: 100,
      })
      // Now: 3 users at step 1, 0 at step 2 (0 %, dropoff 100 %).
      assert.deepEqual(body.change, {
        steps: [
          { step: 1, users: 200, conversionRateFromStart: 0, dropoffPercent: 100 },
          { step: 2, users: -100, conversionRateFromStart: -100, dropoffPercent: null },
        ],
        totalUsers: 200,
        completedUsers: -100,
        overallConversionRate: -100,
      })
    })

    it('refuses an unknown compare', () => {
      assert.equal(ask('country', { ...day, compare: 'lastWeek' }).status, 400)
    })
  })
})
