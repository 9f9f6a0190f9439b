// Hand-worked examples for the reference model (test/reference/model.ts).
// Each expected figure is derived by hand in a comment from docs/definitions.md.

import assert from 'node:assert/strict'
import { answerInsights, type ModelAnswer, type RawEvent } from '../reference/model'

let seq = 0
/** A unique UUID-shaped id, increasing with creation order. */
function nextId(): string {
  seq += 1
  return `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`
}

/** A raw event; `at` is the created_at instant (ISO). */
function ev(session: string, name: string, at: string, extra: Partial<RawEvent> = {}): RawEvent {
  return { id: nextId(), name, device_id: `dev-${session}`, session_id: session, created_at: at, ...extra }
}

function sv(session: string, at: string, path: string, extra: Partial<RawEvent> = {}): RawEvent {
  return ev(session, 'screen_view', at, { origin: 'https://a.com', path, ...extra })
}

function ask(
  events: RawEvent[],
  resource: string,
  query: Record<string, string>,
  now = '2024-03-15T12:00:00.000Z',
  projectTimezone = 'UTC',
): ModelAnswer {
  return answerInsights({ events, projectTimezone, resource, query, now: new Date(now) })
}

function ok(answer: ModelAnswer): any {
  assert.equal(answer.status, 200, `expected 200, got ${answer.status}`)
  return answer.body
}

const filters = (f: unknown[]): string => JSON.stringify(f)

describe('reference model', () => {
  describe('sessions', () => {
    it('takes attributes from the first event, ties broken by the smallest lowercase id', () => {
      // Session s1: two events at the same earliest instant. Raw bytes would put "B..." before "a..."
      // (0x42 < 0x61), but ids compare as lowercase text: "a0..." < "b0...", so the "a0" event is first
      // and the session's country is FR (not DE). The later event (IT) never counts.
      const events: RawEvent[] = [
        ev('s1', 'screen_view', '2024-03-10T10:00:00.000Z', { id: 'B0000000-0000-4000-8000-000000000000', country: 'DE' }),
        ev('s1', 'screen_view', '2024-03-10T10:00:00.000Z', { id: 'a0000000-0000-4000-8000-000000000000', country: 'FR' }),
        ev('s1', 'click', '2024-03-10T09:59:59.999Z', { id: 'f0000000-0000-4000-8000-000000000000', country: 'IT' }),
      ]
      // The click at 09:59:59.999 is earlier still -> it is the first event: country IT.
      assert.deepEqual(ok(ask(events, 'country', {})), [
        // 1 session; 2 page views -> not a bounce; duration 10:00:00.000 - 09:59:59.999 = 1 ms -> 0.001 s -> 0
        { name: 'IT', sessions: 1, pageviews: 2, bounce_rate: 0, avg_session_duration: 0 },
      ])
      // Without the click, the tie decides: FR.
      assert.deepEqual(ok(ask(events.slice(0, 2), 'country', {})), [
        { name: 'FR', sessions: 1, pageviews: 2, bounce_rate: 0, avg_session_duration: 0 },
      ])
    })

    it('unique visitors = distinct profile_id of the first events (profile_id defaults to device_id)', () => {
      const events: RawEvent[] = [
        // u1: first event anonymous (profile = device "dev-u1"), later event logged in as "user-1"
        ev('u1', 'screen_view', '2024-03-10T10:00:00.000Z'),
        ev('u1', 'login', '2024-03-10T10:01:00.000Z', { profile_id: 'user-1' }),
        // u2: profile "dev-u1" explicitly -> the same visitor as u1
        ev('u2', 'screen_view', '2024-03-11T10:00:00.000Z', { profile_id: 'dev-u1' }),
        // u3: profile "user-1" -> a second visitor
        ev('u3', 'screen_view', '2024-03-12T10:00:00.000Z', { profile_id: 'user-1' }),
      ]
      const m = ok(ask(events, 'metrics', {})).metrics
      // sessions u1, u2, u3 -> profiles {dev-u1, dev-u1, user-1} -> 2
      assert.equal(m.total_sessions, 3)
      assert.equal(m.unique_visitors, 2)
    })
  })

  describe('metrics', () => {
    // now = 2024-03-15T12:00Z, tz UTC, range 7d -> window [2024-03-09T00:00Z, 2024-03-16T00:00Z)
    const events: RawEvent[] = [
      // s1: 2 page views, duration 27.034 s (last event 10:00:27.034)
      sv('s1', '2024-03-10T10:00:00.000Z', '/a', { country: 'DE' }),
      sv('s1', '2024-03-10T10:00:20.000Z', '/b', { country: 'DE' }),
      ev('s1', 'click', '2024-03-10T10:00:27.034Z'),
      // s2: 1 page view, duration 0 -> bounce
      sv('s2', '2024-03-11T09:00:00.000Z', '/a', { country: 'DE' }),
      // s3: same device as s1 (same visitor), 1 page view -> bounce, duration 10.001 s, revenue 500
      sv('s3', '2024-03-12T08:00:00.000Z', '/b', { country: 'US', device_id: 'dev-s1' }),
      ev('s3', 'signup', '2024-03-12T08:00:10.001Z', { revenue: 500, device_id: 'dev-s1' }),
      // s4: starts before the window (03-08 23:59:59.999) -> not a window session; but its revenue
      // event at 03-09 00:00:05 is inside the window -> counts in total_revenue.
      sv('s4', '2024-03-08T23:59:59.999Z', '/a'),
      ev('s4', 'purchase', '2024-03-09T00:00:05.000Z', { revenue: 250 }),
      // s5: starts exactly at the (exclusive) end -> outside; its revenue too.
      ev('s5', 'purchase', '2024-03-16T00:00:00.000Z', { revenue: 1000 }),
    ]

    it('computes the totals with exact half-up rounding', () => {
      const body = ok(ask(events, 'metrics', { range: '7d' }))
      assert.deepEqual(body.metrics, {
        // bounces s2, s3 of 3 sessions: 100*2/3 = 66.666... -> 66.67
        bounce_rate: 66.67,
        // profiles dev-s1 (s1, s3), dev-s2 -> 2
        unique_visitors: 2,
        total_sessions: 3,
        // (27034 + 0 + 10001) / 3 = 37035 / 3 = 12345 ms = 12.345 s -> half up 12.35
        avg_session_duration: 12.35,
        // 2 + 1 + 1
        total_screen_views: 4,
        // 4 / 3 = 1.333... -> 1.33
        views_per_session: 1.33,
        // 500 (s3) + 250 (s4's in-window event); s5's 1000 is at the exclusive end
        total_revenue: 750,
      })
    })

    it('fills every day bucket of the 7d window (today and the 6 days before)', () => {
      const body = ok(ask(events, 'metrics', {}))
      // 7 days = 7*24 h <= 92 days -> interval day; buckets 03-09 .. 03-15
      const zero = {
        bounce_rate: 0,
        unique_visitors: 0,
        total_sessions: 0,
        avg_session_duration: 0,
        total_screen_views: 0,
        views_per_session: 0,
        total_revenue: 0,
      }
      assert.deepEqual(body.series, [
        // 03-09: no session starts, but s4's 250 revenue is created that day
        { date: '2024-03-09T00:00:00.000+00:00', ...zero, total_revenue: 250 },
        // 03-10: s1 -> 27034 ms -> 27.034 s -> 27.03; 2 views / 1 session
        {
          date: '2024-03-10T00:00:00.000+00:00',
          ...zero,
          unique_visitors: 1,
          total_sessions: 1,
          avg_session_duration: 27.03,
          total_screen_views: 2,
          views_per_session: 2,
        },
        // 03-11: s2, a bounce
        {
          date: '2024-03-11T00:00:00.000+00:00',
          ...zero,
          bounce_rate: 100,
          unique_visitors: 1,
          total_sessions: 1,
          total_screen_views: 1,
          views_per_session: 1,
        },
        // 03-12: s3, a bounce, 10.001 s -> 10, revenue 500
        {
          date: '2024-03-12T00:00:00.000+00:00',
          bounce_rate: 100,
          unique_visitors: 1,
          total_sessions: 1,
          avg_session_duration: 10,
          total_screen_views: 1,
          views_per_session: 1,
          total_revenue: 500,
        },
        { date: '2024-03-13T00:00:00.000+00:00', ...zero },
        { date: '2024-03-14T00:00:00.000+00:00', ...zero },
        { date: '2024-03-15T00:00:00.000+00:00', ...zero },
      ])
    })

    it('7d in another zone: local days, offsets of each instant (US DST on 2024-03-10)', () => {
      // now 2024-03-15T02:00Z = 03-14 22:00 EDT -> today = 03-14 in America/New_York.
      // Window [03-08 00:00 EST, 03-15 00:00 EDT) = [03-08T05:00Z, 03-15T04:00Z).
      const body = ok(ask(events, 'metrics', { timezone: 'America/New_York' }, '2024-03-15T02:00:00.000Z'))
      const dates = body.series.map((b: { date: string }) => b.date)
      assert.deepEqual(dates, [
        '2024-03-08T00:00:00.000-05:00',
        '2024-03-09T00:00:00.000-05:00',
        '2024-03-10T00:00:00.000-05:00',
        '2024-03-11T00:00:00.000-04:00',
        '2024-03-12T00:00:00.000-04:00',
        '2024-03-13T00:00:00.000-04:00',
        '2024-03-14T00:00:00.000-04:00',
      ])
      // s4 now starts inside the window (03-08 18:59:59.999 EST): s1, s2, s3, s4 -> 4 sessions
      assert.equal(body.metrics.total_sessions, 4)
      // s4's start is in the 03-08 bucket
      assert.equal(body.series[0].total_sessions, 1)
    })

    it('7d window edges: start inclusive, D1 exclusive', () => {
      const edge: RawEvent[] = [
        sv('e1', '2024-03-08T23:59:59.999Z', '/'), // before the window
        sv('e2', '2024-03-09T00:00:00.000Z', '/'), // first instant of the window
        sv('e3', '2024-03-15T23:59:59.999Z', '/'), // later today, still before D1
        sv('e4', '2024-03-16T00:00:00.000Z', '/'), // D1 -> outside
      ]
      assert.equal(ok(ask(edge, 'metrics', { range: '7d' })).metrics.total_sessions, 2)
      // today: [03-15, 03-16) -> only e3
      assert.equal(ok(ask(edge, 'metrics', { range: 'today' })).metrics.total_sessions, 1)
      // yesterday: [03-14, 03-15) -> none
      assert.equal(ok(ask(edge, 'metrics', { range: 'yesterday' })).metrics.total_sessions, 0)
    })

    it('a DST day in Europe/Berlin is a 23 h bucket', () => {
      // startDate 2024-03-30, endDate 2024-04-01 (inclusive) in Berlin:
      // [03-30 00:00+01:00, 04-02 00:00+02:00) = 71 h > 48 h -> interval day, 3 buckets.
      const dst: RawEvent[] = [
        sv('d1', '2024-03-30T22:59:59.999Z', '/'), // 03-30 23:59:59.999 CET -> 03-30
        sv('d2', '2024-03-30T23:00:00.000Z', '/'), // 03-31 00:00 CET -> 03-31
        sv('d3', '2024-03-31T21:59:59.999Z', '/'), // 03-31 23:59:59.999 CEST -> 03-31
        sv('d4', '2024-03-31T22:00:00.000Z', '/'), // 04-01 00:00 CEST -> 04-01 (03-31 in UTC!)
        sv('d5', '2024-04-01T21:59:59.999Z', '/'), // 04-01 23:59:59.999 CEST -> 04-01 (end date inclusive)
        sv('d6', '2024-04-01T22:00:00.000Z', '/'), // 04-02 00:00 CEST -> outside
      ]
      const body = ok(ask(dst, 'metrics', { startDate: '2024-03-30', endDate: '2024-04-01', timezone: 'Europe/Berlin' }))
      const dates = body.series.map((b: { date: string }) => b.date)
      assert.deepEqual(dates, ['2024-03-30T00:00:00.000+01:00', '2024-03-31T00:00:00.000+01:00', '2024-04-01T00:00:00.000+02:00'])
      // 03-31 bucket: from 03-30T23:00Z to 03-31T22:00Z = 23 h
      assert.equal(Date.parse(dates[2]) - Date.parse(dates[1]), 23 * 3600_000)
      assert.deepEqual(
        body.series.map((b: { total_sessions: number }) => b.total_sessions),
        [1, 2, 2],
      )
      assert.equal(body.metrics.total_sessions, 5)
    })

    it('today on the Berlin DST day has 23 hour buckets, 02:00 missing', () => {
      // now 2024-03-31T10:00Z; today = [03-30T23:00Z, 03-31T22:00Z) = 23 h <= 2 days -> hour
      const body = ok(ask([], 'metrics', { range: 'today' }, '2024-03-31T10:00:00.000Z', 'Europe/Berlin'))
      const dates: string[] = body.series.map((b: { date: string }) => b.date)
      assert.equal(dates.length, 23)
      assert.deepEqual(dates.slice(0, 4), [
        '2024-03-31T00:00:00.000+01:00',
        '2024-03-31T01:00:00.000+01:00',
        '2024-03-31T03:00:00.000+02:00',
        '2024-03-31T04:00:00.000+02:00',
      ])
      assert.equal(dates[22], '2024-03-31T23:00:00.000+02:00')
      // no sessions -> every figure is 0
      assert.equal(body.metrics.bounce_rate, 0)
      assert.equal(body.metrics.avg_session_duration, 0)
    })

    it('week buckets start on Monday; the first is the one containing start', () => {
      // [2024-03-06 (Wed), 2024-03-21) in UTC, interval week -> Mondays 03-04, 03-11, 03-18
      const wk: RawEvent[] = [
        sv('w0', '2024-03-05T12:00:00.000Z', '/'), // Tuesday before start -> outside the window
        sv('w1', '2024-03-10T23:00:00.000Z', '/'), // Sunday -> week of 03-04
        sv('w2', '2024-03-11T00:00:00.000Z', '/'), // Monday 00:00 -> week of 03-11
        sv('w3', '2024-03-20T23:59:00.000Z', '/'), // last day (end date inclusive) -> week of 03-18
        sv('w4', '2024-03-21T00:00:00.000Z', '/'), // after the end date -> outside
      ]
      const body = ok(ask(wk, 'metrics', { startDate: '2024-03-06', endDate: '2024-03-20', interval: 'week' }))
      assert.deepEqual(
        body.series.map((b: { date: string; total_sessions: number }) => [b.date, b.total_sessions]),
        [
          ['2024-03-04T00:00:00.000+00:00', 1],
          ['2024-03-11T00:00:00.000+00:00', 1],
          ['2024-03-18T00:00:00.000+00:00', 1],
        ],
      )
      assert.equal(body.metrics.total_sessions, 3)
    })

    it('date-time bounds are instants; an end date-time is not extended', () => {
      const evs: RawEvent[] = [
        sv('t1', '2024-03-31T09:59:59.999Z', '/'), // 11:59:59.999+02:00 -> inside
        sv('t2', '2024-03-31T10:00:00.000Z', '/'), // = end -> outside
      ]
      const body = ok(
        ask(evs, 'metrics', {
          startDate: '2024-03-01',
          endDate: '2024-03-31T12:00:00+02:00',
          timezone: 'Europe/Berlin',
        }),
      )
      assert.equal(body.metrics.total_sessions, 1)
      // window [02-29T23:00Z, 03-31T10:00Z): 30 days 11 h -> day buckets 03-01 .. 03-31 (31)
      assert.equal(body.series.length, 31)
    })
  })

  describe('filters', () => {
    // sA: /pricing (plan=pro), /docs, signup on /checkout (plan=pro)
    // sB: /pricing (plan=free), signup on /docs (plan=free)
    // sC: /docs only
    // sD: a signup on /docs (plan=pro), no page view
    const events: RawEvent[] = [
      sv('sA', '2024-03-10T10:00:00.000Z', '/pricing', { properties: { plan: 'pro' } }),
      sv('sA', '2024-03-10T10:00:10.000Z', '/docs'),
      ev('sA', 'signup', '2024-03-10T10:00:20.000Z', { path: '/checkout', properties: { plan: 'pro' } }),
      sv('sB', '2024-03-11T10:00:00.000Z', '/pricing', { properties: { plan: 'free' } }),
      ev('sB', 'signup', '2024-03-11T10:00:20.000Z', { path: '/docs', properties: { plan: 'free' } }),
      sv('sC', '2024-03-12T10:00:00.000Z', '/docs'),
      ev('sD', 'signup', '2024-03-13T10:00:00.000Z', { path: '/docs', properties: { plan: 'pro' } }),
    ]

    it('keeps a session when one event matches all event filters; counts only matching page views', () => {
      const m = ok(
        ask(events, 'metrics', {
          filters: filters([
            { name: 'name', operator: 'is', value: ['signup'] },
            { name: 'properties.plan', operator: 'is', value: ['pro'] },
          ]),
        }),
      ).metrics
      // signup+pro events: sA's and sD's -> sessions sA, sD.
      assert.equal(m.total_sessions, 2)
      // page views counted where properties.plan = pro (the name filter is ignored for this):
      // sA /pricing (pro) yes, sA /docs ("" ) no; sD has none -> 1
      assert.equal(m.total_screen_views, 1)
      // bounce uses all page views: sA has 2 (no bounce), sD has 0 (bounce) -> 50
      assert.equal(m.bounce_rate, 50)
      // 1 / 2 = 0.5
      assert.equal(m.views_per_session, 0.5)
    })

    it('event filters must match one event at once, not across events', () => {
      const m = ok(
        ask(events, 'metrics', {
          filters: filters([
            { name: 'name', operator: 'is', value: ['signup'] },
            { name: 'path', operator: 'is', value: ['/docs'] },
          ]),
        }),
      ).metrics
      // sA: signup is on /checkout, /docs is a screen_view -> no single event -> dropped.
      // sB: signup on /docs -> kept; sD: signup on /docs -> kept. sC: no signup.
      assert.equal(m.total_sessions, 2)
      // counted page views: path = /docs -> sB has only /pricing -> 0; sD none -> 0
      assert.equal(m.total_screen_views, 0)
    })

    it('pages: views of kept sessions that match the non-name filters', () => {
      const rows = ok(ask(events, 'pages', { filters: filters([{ name: 'name', operator: 'is', value: ['signup'] }]) }))
      // sessions with a signup: sA, sB, sD; no non-name filters -> all their page views:
      // /pricing: sA, sB -> 2 sessions; /docs: sA -> 1 session (sC has no signup)
      assert.deepEqual(
        rows.map((r: { path: string; sessions: number; pageviews: number }) => [r.path, r.sessions, r.pageviews]),
        [
          ['/pricing', 2, 2],
          ['/docs', 1, 1],
        ],
      )
    })

    it('doesNotContain is ANDed over its values, case-insensitively; contains is ORed', () => {
      const refs: RawEvent[] = [
        sv('r1', '2024-03-10T10:00:00.000Z', '/', { referrer: 'https://www.Google.com/' }),
        sv('r2', '2024-03-10T11:00:00.000Z', '/', { referrer: 'https://bing.com/search' }),
        sv('r3', '2024-03-10T12:00:00.000Z', '/', { referrer: 'https://duckduckgo.com/' }),
        sv('r4', '2024-03-10T13:00:00.000Z', '/'),
      ]
      const count = (f: unknown[]): number => ok(ask(refs, 'metrics', { filters: filters(f) })).metrics.total_sessions
      // contains neither google nor bing: r3, r4 (an ORed version would keep all 4)
      assert.equal(count([{ name: 'referrer', operator: 'doesNotContain', value: ['GOOGLE', 'bing'] }]), 2)
      // contains google or bing: r1 (case-insensitive), r2
      assert.equal(count([{ name: 'referrer', operator: 'contains', value: ['GOOGLE', 'bing'] }]), 2)
      // isNull: r4
      assert.equal(count([{ name: 'referrer', operator: 'isNull' }]), 1)
      // isNot is ANDed too: not r1's and not r2's value -> r3, r4
      assert.equal(count([{ name: 'referrer', operator: 'isNot', value: ['https://www.Google.com/', 'https://bing.com/search'] }]), 2)
      // regex, unanchored: "go+gle" finds r1 (case-sensitive: "Google" has "oogle")
      assert.equal(count([{ name: 'referrer', operator: 'regex', value: ['go+gle'] }]), 0)
      assert.equal(count([{ name: 'referrer', operator: 'regex', value: ['o+gle'] }]), 1)
      // filters are ANDed: contains "com" and endsWith "search" -> r2
      assert.equal(
        count([
          { name: 'referrer', operator: 'contains', value: ['com'] },
          { name: 'referrer', operator: 'endsWith', value: ['SEARCH'] },
        ]),
        1,
      )
    })

    it('numeric operators on a property compare as numbers and skip non-numeric values', () => {
      const amounts = ['10', '9.5', 'abc', undefined, '1e2', ' 20', '-3', '']
      const evs: RawEvent[] = amounts.map((a, i) =>
        ev(`n${i}`, 'purchase', `2024-03-10T1${i % 10}:00:00.000Z`, {
          properties: a === undefined ? {} : { amount: a },
        }),
      )
      const count = (f: unknown[]): number => ok(ask(evs, 'metrics', { filters: filters(f) })).metrics.total_sessions
      // numbers: 10, 9.5, 100, -3; not numbers: "abc", missing (""), " 20" (space), ""
      // gt 9 -> 10, 9.5, 100 -> 3 (as text "9.5" > "9" too, but "100" < "9" as text)
      assert.equal(count([{ name: 'properties.amount', operator: 'gt', value: [9] }]), 3)
      // gt "50" or 9.9 (ORed) -> 10, 100 -> 2
      assert.equal(count([{ name: 'properties.amount', operator: 'gt', value: ['50', 9.9] }]), 2)
      // gte 100 -> "1e2" -> 1
      assert.equal(count([{ name: 'properties.amount', operator: 'gte', value: [100] }]), 1)
      // lt 0 -> -3 -> 1 ("abc", "" never match)
      assert.equal(count([{ name: 'properties.amount', operator: 'lt', value: [0] }]), 1)
      // lte 10 -> 10, 9.5, -3 -> 3
      assert.equal(count([{ name: 'properties.amount', operator: 'lte', value: ['10'] }]), 3)
      // a missing key reads as "": isNull -> n3 (missing) and n7 ("") -> 2
      assert.equal(count([{ name: 'properties.amount', operator: 'isNull' }]), 2)
      // numbers as values of text operators are their decimal text: is 100 -> "100" -> no "1e2" match
      assert.equal(count([{ name: 'properties.amount', operator: 'is', value: [10] }]), 1)
      assert.equal(count([{ name: 'properties.amount', operator: 'is', value: [100] }]), 0)
    })
  })

  describe('revenue', () => {
    // window 7d at now 2024-03-15T12:00Z: [03-09, 03-16) UTC
    const events: RawEvent[] = [
      // R1 (DE) starts before the window; its purchase (1000) and subscription (300) are inside it
      sv('R1', '2024-03-08T22:00:00.000Z', '/', { country: 'DE' }),
      ev('R1', 'purchase', '2024-03-09T10:00:00.000Z', { revenue: 1000, path: '/checkout' }),
      ev('R1', 'subscription', '2024-03-09T10:05:00.000Z', { revenue: 300, path: '/account' }),
      // R2 (DE): purchase 250 inside, purchase 99 at the exclusive end
      sv('R2', '2024-03-10T10:00:00.000Z', '/', { country: 'DE' }),
      ev('R2', 'purchase', '2024-03-10T10:01:00.000Z', { revenue: 250, path: '/checkout' }),
      ev('R2', 'purchase', '2024-03-16T00:00:00.000Z', { revenue: 99, path: '/checkout' }),
      // R3 (US): purchase 700 inside
      sv('R3', '2024-03-11T10:00:00.000Z', '/', { country: 'US' }),
      ev('R3', 'purchase', '2024-03-11T10:01:00.000Z', { revenue: 700, path: '/checkout' }),
    ]
    const revenue = (f: unknown[]): number => ok(ask(events, 'metrics', { filters: filters(f) })).metrics.total_revenue

    it('sums in-window events, whenever their session started', () => {
      // 1000 + 300 + 250 + 700 = 2250 (the 99 is at the end instant)
      assert.equal(revenue([]), 2250)
    })
    it('session-attribute filters select the sessions (even those started before the window)', () => {
      // DE: 1000 + 300 + 250 = 1550
      assert.equal(revenue([{ name: 'country', operator: 'is', value: ['DE'] }]), 1550)
    })
    it('event-field filters apply to the revenue event itself', () => {
      // DE and name purchase: 1000 + 250 = 1250
      assert.equal(
        revenue([
          { name: 'country', operator: 'is', value: ['DE'] },
          { name: 'name', operator: 'is', value: ['purchase'] },
        ]),
        1250,
      )
      // path /account: only R1's subscription (300); R1 is kept by the event filter, not R2/R3
      assert.equal(revenue([{ name: 'path', operator: 'is', value: ['/account'] }]), 300)
    })
  })

  describe('pages', () => {
    // now 2024-03-15T12:00Z, range 7d -> [03-09, 03-16)
    const events: RawEvent[] = [
      // P1: /home @0 "Home", /pricing @10 "Pricing", /home @25 "Home v2"
      sv('P1', '2024-03-10T10:00:00.000Z', '/home', { title: 'Home' }),
      sv('P1', '2024-03-10T10:00:10.000Z', '/pricing', { title: 'Pricing' }),
      sv('P1', '2024-03-10T10:00:25.000Z', '/home', { title: 'Home v2' }),
      // P2: /pricing only -> bounce, entered on /pricing
      sv('P2', '2024-03-10T09:00:00.000Z', '/pricing', { title: 'Pricing (old)' }),
      // P3: first event app_open carries /home -> entry page /home; /home @5 (no title), /docs @8.5
      ev('P3', 'app_open', '2024-03-10T11:00:00.000Z', { origin: 'https://a.com', path: '/home' }),
      sv('P3', '2024-03-10T11:00:05.000Z', '/home'),
      sv('P3', '2024-03-10T11:00:08.500Z', '/docs'),
      // P4: /home only -> bounce, entered on /home
      sv('P4', '2024-03-10T12:00:00.000Z', '/home'),
      // P5: /docs 1 s before the window end, /home 4 s after it (outside, but still P5's next view)
      sv('P5', '2024-03-15T23:59:59.000Z', '/docs'),
      sv('P5', '2024-03-16T00:00:04.000Z', '/home'),
    ]

    it('computes sessions, pageviews, title, bounce_rate of entry sessions and avg_duration', () => {
      const answer = ask(events, 'pages', {})
      assert.equal(answer.next, false)
      assert.deepEqual(ok(answer), [
        // /home: views P1@0, P1@25, P3@5, P4 (P5's is outside) -> 4 views, 3 sessions.
        // title: latest non-empty: P4 and P3 have none, P1@25 "Home v2".
        // entry sessions: P1, P3 (app_open on /home), P4; bounces: P4 -> 100/3 = 33.33
        // gaps: P1@0 -> /pricing@10 = 10 s; P1@25 none; P3@5 -> /docs@8.5 = 3.5 s; P4 none
        //   -> (10000 + 3500) / 2 = 6750 ms -> 6.75
        {
          title: 'Home v2',
          origin: 'https://a.com',
          path: '/home',
          sessions: 3,
          pageviews: 4,
          bounce_rate: 33.33,
          avg_duration: 6.75,
        },
        // /docs and /pricing both have 2 sessions -> path asc: /docs first.
        // /docs: P3@8.5, P5 -> title "" (none); entry sessions: P5 (2 views, no bounce) -> 0;
        //   gaps: P3 none; P5 -> its /home at +5 s (outside the window, still counted) -> 5
        {
          title: '',
          origin: 'https://a.com',
          path: '/docs',
          sessions: 2,
          pageviews: 2,
          bounce_rate: 0,
          avg_duration: 5,
        },
        // /pricing: P1@10 (10:00:10 "Pricing"), P2 (09:00 "Pricing (old)") -> latest titled "Pricing".
        // entry sessions: P2 (bounce) -> 100; gaps: P1@10 -> @25 = 15 s; P2 none -> 15
        {
          title: 'Pricing',
          origin: 'https://a.com',
          path: '/pricing',
          sessions: 2,
          pageviews: 2,
          bounce_rate: 100,
          avg_duration: 15,
        },
      ])
    })

    it('null bounce_rate / avg_duration when no session entered / no view has a next one', () => {
      const rows = ok(ask(events, 'pages', { startDate: '2024-03-10T11:00:08.000Z', endDate: '2024-03-10T11:00:09.000Z' }))
      // only P3's /docs view @8.5 is in the window; P3 entered on /home; no next view
      assert.deepEqual(rows, [
        { title: '', origin: 'https://a.com', path: '/docs', sessions: 1, pageviews: 1, bounce_rate: null, avg_duration: null },
      ])
    })

    it('title ties are broken by the largest id text; pages page like dimensions', () => {
      const evs: RawEvent[] = [
        sv('T1', '2024-03-10T10:00:00.000Z', '/x', { id: '00000000-0000-4000-8000-00000000000a', title: 'First' }),
        sv('T2', '2024-03-10T10:00:00.000Z', '/x', { id: '00000000-0000-4000-8000-00000000000B', title: 'Second' }),
        sv('T3', '2024-03-10T10:00:00.000Z', '/y'),
      ]
      // same created_at -> largest lowercase id: "...0b" > "...0a" -> "Second"
      const first = ask(evs, 'pages', { limit: '1' })
      assert.deepEqual(
        (ok(first) as Array<{ title: string }>).map((r) => r.title),
        ['Second'],
      )
      assert.equal(first.next, true)
      const second = ask(evs, 'pages', { limit: '1', cursor: '2' })
      assert.deepEqual(
        (ok(second) as Array<{ path: string }>).map((r) => r.path),
        ['/y'],
      )
      assert.equal(second.next, false)
    })
  })

  describe('dimensions', () => {
    const geo: Array<[string, string, string]> = [
      // [session, country, city]
      ['g1', 'DE', 'Berlin'],
      ['g2', 'DE', 'Berlin'],
      ['g3', 'US', 'Austin'],
      ['g4', 'DE', ''],
      ['g5', '', 'Paris'],
      ['g6', 'DE', 'Aachen'],
    ]
    const events: RawEvent[] = geo.map(([s, country, city], i) => sv(s, `2024-03-1${i}T10:00:00.000Z`, '/', { country, city }))
    // sessions start 03-10 .. 03-15 -> all in the 7d window; each has 1 view (bounce), duration 0

    it('city rows carry the country prefix; empty values are null; order sessions, prefix, name', () => {
      const rows = ok(ask(events, 'city', {}))
      const fig = { bounce_rate: 100, avg_session_duration: 0 }
      assert.deepEqual(rows, [
        { prefix: 'DE', name: 'Berlin', sessions: 2, pageviews: 2, ...fig },
        // 1-session rows by prefix asc, empty first: "" (null) < "DE" < "US"; in DE name "" first
        { prefix: null, name: 'Paris', sessions: 1, pageviews: 1, ...fig },
        { prefix: 'DE', name: null, sessions: 1, pageviews: 1, ...fig },
        { prefix: 'DE', name: 'Aachen', sessions: 1, pageviews: 1, ...fig },
        { prefix: 'US', name: 'Austin', sessions: 1, pageviews: 1, ...fig },
      ])
    })

    it('country rows have no prefix key', () => {
      const rows = ok(ask(events, 'country', {}))
      assert.deepEqual(rows, [
        { name: 'DE', sessions: 4, pageviews: 4, bounce_rate: 100, avg_session_duration: 0 },
        { name: null, sessions: 1, pageviews: 1, bounce_rate: 100, avg_session_duration: 0 },
        { name: 'US', sessions: 1, pageviews: 1, bounce_rate: 100, avg_session_duration: 0 },
      ])
      assert.equal(Object.hasOwn(rows[0], 'prefix'), false)
    })

    it('pages through rows with next', () => {
      // 5 city rows (see above)
      const p = (limit: string, cursor?: string): [number, boolean] => {
        const a = ask(events, 'city', cursor === undefined ? { limit } : { limit, cursor })
        return [(ok(a) as unknown[]).length, a.next]
      }
      assert.deepEqual(p('2'), [2, true]) // rows 0,1 of 5
      assert.deepEqual(p('2', '2'), [2, true]) // rows 2,3
      assert.deepEqual(p('2', '3'), [1, false]) // row 4
      assert.deepEqual(p('2', '4'), [0, false])
      assert.deepEqual(p('5'), [5, false]) // exactly all rows: no next
      assert.deepEqual(p('4'), [4, true])
      const third = ok(ask(events, 'city', { limit: '2', cursor: '2' }))
      assert.deepEqual(
        third.map((r: { name: string | null }) => r.name),
        [null, 'Aachen'],
      )
    })

    it('orders names bytewise (UTF-8), not by locale', () => {
      const evs: RawEvent[] = ['zeta', 'Zürich', 'Zug', 'Ávila'].map((city, i) =>
        sv(`c${i}`, `2024-03-1${i}T10:00:00.000Z`, '/', { city, country: 'CH' }),
      )
      // bytes: "Zug" (5A 75) < "Zürich" (5A C3 BC) < "zeta" (7A) < "Ávila" (C3 81)
      assert.deepEqual(
        ok(ask(evs, 'city', {})).map((r: { name: string }) => r.name),
        ['Zug', 'Zürich', 'zeta', 'Ávila'],
      )
    })

    it('session durations and pageviews per row follow metrics', () => {
      const evs: RawEvent[] = [
        sv('b1', '2024-03-10T10:00:00.000Z', '/', { browser: 'Firefox', browser_version: '120' }),
        sv('b1', '2024-03-10T10:00:02.010Z', '/x'),
        sv('b2', '2024-03-11T10:00:00.000Z', '/', { browser: 'Firefox', browser_version: '120' }),
        sv('b3', '2024-03-12T10:00:00.000Z', '/', { browser: 'Chrome', browser_version: '120' }),
      ]
      // Firefox 120: b1 (2010 ms, 2 views), b2 (0, 1 view, bounce): mean 1005 ms = 1.005 s -> half up 1.01
      //   (the float route (2010/2/1000)*100 = 100.49999999999999 would give 1.00);
      //   bounce 1/2 -> 50; pageviews 3
      // Chrome 120: b3 -> 1 view, bounce 100
      // both 120; order sessions desc -> Firefox (2) first
      assert.deepEqual(ok(ask(evs, 'browser_version', {})), [
        { prefix: 'Firefox', name: '120', sessions: 2, pageviews: 3, bounce_rate: 50, avg_session_duration: 1.01 },
        { prefix: 'Chrome', name: '120', sessions: 1, pageviews: 1, bounce_rate: 100, avg_session_duration: 0 },
      ])
    })
  })

  describe('live', () => {
    it('counts distinct profiles with events in [now - 5 min, now]', () => {
      const now = '2024-03-15T12:00:00.000Z'
      const evs: RawEvent[] = [
        ev('l1', 'x', '2024-03-15T11:55:00.000Z', { profile_id: 'p1' }), // now - 5 min: inside
        ev('l2', 'x', '2024-03-15T11:54:59.999Z', { profile_id: 'p2' }), // just before: outside
        ev('l3', 'x', '2024-03-15T12:00:00.000Z', { profile_id: 'p3' }), // now: inside
        ev('l4', 'x', '2024-03-15T12:00:00.001Z', { profile_id: 'p4' }), // after now: outside
        ev('l5', 'x', '2024-03-15T11:58:00.000Z', { profile_id: 'p1' }), // p1 again
      ]
      assert.deepEqual(ask(evs, 'live', {}, now), { status: 200, body: { visitors: 2 }, next: false })
      assert.equal(ask(evs, 'live', { range: '7d' }, now).status, 400)
    })
  })

  describe('validation', () => {
    const events: RawEvent[] = [sv('v1', '2024-03-10T10:00:00.000Z', '/')]
    const bad: Array<[string, Record<string, string>]> = [
      ['metrics', { range: '8d' }],
      ['metrics', { range: 'custom' }],
      ['metrics', { endDate: '2024-03-10' }],
      ['metrics', { startDate: '2024-03-10', endDate: '2024-03-09' }],
      ['metrics', { startDate: '2024-03-10T00:00:00Z', endDate: '2024-03-10T00:00:00Z' }],
      ['metrics', { startDate: '2024-02-30' }],
      ['metrics', { startDate: '2024-03-10T10:00:00' }], // no offset
      ['metrics', { startDate: '2099-01-01' }], // start alone runs to now: start >= end
      ['metrics', { interval: 'year' }],
      ['metrics', { limit: '5' }],
      ['metrics', { timezone: 'Mars/Olympus' }],
      ['pages', { interval: 'day' }],
      ['pages', { limit: '0' }],
      ['pages', { limit: '1001' }],
      ['pages', { limit: '2.5' }],
      ['pages', { cursor: '0' }],
      ['pages', { cursor: '-1' }],
      ['country', { foo: '1' }],
      ['country', { filters: '[' }],
      ['country', { filters: '{}' }],
      ['country', { filters: filters([{ name: 'nope', operator: 'is', value: ['x'] }]) }],
      ['country', { filters: filters([{ name: 'country', operator: 'like', value: ['x'] }]) }],
      ['country', { filters: filters([{ name: 'path', operator: 'gt', value: [1] }]) }],
      ['country', { filters: filters([{ name: 'country', operator: 'is', value: [] }]) }],
      ['country', { filters: filters([{ name: 'country', operator: 'is' }]) }],
      ['country', { filters: filters([{ name: 'country', operator: 'is', value: [true] }]) }],
      ['country', { filters: filters([{ name: 'country', operator: 'is', value: [null] }]) }],
      ['country', { filters: filters([{ name: 'country', operator: 'is', value: 'DE' }]) }],
    ]
    for (const [resource, query] of bad) {
      it(`400 for ${resource} ${JSON.stringify(query)}`, () => {
        assert.deepEqual(ask(events, resource, query), { status: 400, body: null, next: false })
      })
    }

    it('accepts every documented parameter', () => {
      assert.equal(
        ask(events, 'metrics', {
          startDate: '2024-03-01',
          endDate: '2024-03-31T12:00:00+02:00',
          range: 'custom',
          filters: filters([{ name: 'properties.plan', operator: 'gte', value: ['1.5e1'] }]),
          timezone: 'Europe/Berlin',
          interval: 'hour',
        }).status,
        200,
      )
      for (const range of [
        '30min',
        'lastHour',
        'last24h',
        'today',
        'yesterday',
        '7d',
        '30d',
        '3m',
        '6m',
        '12m',
        'monthToDate',
        'lastMonth',
        'yearToDate',
        'lastYear',
      ]) {
        assert.equal(ask(events, 'country', { range, limit: '1000', cursor: '3' }).status, 200, range)
      }
    })

    it('range windows: months, years, rolling ones', () => {
      // now 2024-05-31T12:00Z (UTC), one session at each listed instant
      const at = [
        '2024-02-29T23:59:59.999Z', // just before 3m start
        '2024-03-01T00:00:00.000Z', // 3m starts at D1 - 3 months = 06-01 - 3 months = 03-01
        '2024-05-01T00:00:00.000Z', // monthToDate start
        '2024-04-30T23:59:59.999Z', // lastMonth end (exclusive 05-01)
        '2024-01-01T00:00:00.000Z', // yearToDate start
        '2023-12-31T23:59:59.999Z', // lastYear
        '2024-05-31T11:30:00.000Z', // 30min start (now - 30 min) inclusive
        '2024-05-31T11:00:00.000Z', // lastHour start inclusive
        '2024-05-30T12:00:00.000Z', // last24h start inclusive
        '2024-05-31T12:00:00.000Z', // = now: excluded from rolling windows, inside today
      ]
      const evs = at.map((t, i) => sv(`x${i}`, t, '/'))
      const n = (range: string): number => ok(ask(evs, 'metrics', { range }, '2024-05-31T12:00:00.000Z')).metrics.total_sessions
      assert.equal(n('30min'), 1) // 11:30
      assert.equal(n('lastHour'), 2) // 11:00, 11:30
      assert.equal(n('last24h'), 3) // 05-30 12:00, 11:00, 11:30
      assert.equal(n('today'), 3) // 11:00, 11:30, 12:00
      assert.equal(n('monthToDate'), 5) // 05-01, 05-30, 11:00, 11:30, 12:00
      assert.equal(n('lastMonth'), 1) // 04-30 23:59:59.999
      assert.equal(n('3m'), 7) // from 03-01: 03-01, 04-30, 05-01, 05-30, 3 today
      assert.equal(n('yearToDate'), 9) // all but 2023-12-31
      assert.equal(n('lastYear'), 1)
      // 3m: [03-01, 06-01) = 92 days -> interval day (<= 92 days)
      assert.equal(ok(ask(evs, 'metrics', { range: '3m' }, '2024-05-31T12:00:00.000Z')).series.length, 92)
      // 6m: [12-01, 06-01) = 183 days -> week; first bucket Monday 2023-11-27
      const six = ok(ask(evs, 'metrics', { range: '6m' }, '2024-05-31T12:00:00.000Z')).series
      assert.equal(six[0].date, '2023-11-27T00:00:00.000+00:00')
      // 12m from 2023-06-01 = 366 days (2024 is a leap year) -> still week
      const twelve = ok(ask(evs, 'metrics', { range: '12m' }, '2024-05-31T12:00:00.000Z')).series
      assert.equal(twelve[0].date, '2023-05-29T00:00:00.000+00:00')
    })
  })
})
