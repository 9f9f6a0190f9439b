// Hand-worked examples for the charts reference model (test/reference/charts.ts).
// Each expected number is derived by hand in a comment from docs/definitions.md, "Charts".

import assert from 'node:assert/strict'
import { answerChart, round2 } from '../reference/charts'
import type { RawEvent } from '../reference/model'

let seq = 0
function ev(name: string, at: string, profile: string, session: string, extra: Partial<RawEvent> = {}): RawEvent {
  seq += 1
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    name,
    device_id: `dev-${profile}`,
    profile_id: profile,
    session_id: session,
    created_at: at,
    ...extra,
  }
}

// Data set D (zone UTC). Window: startDate=2024-03-01, endDate=2024-03-03 -> [03-01, 03-04), interval
// day -> buckets 03-01 (d1), 03-02 (d2), 03-03 (d3).
const D: RawEvent[] = [
  ev('buy', '2024-02-29T12:00:00Z', 'u3', 's0', { properties: { price: '7' }, path: '/c' }), // e0: before the window
  ev('buy', '2024-03-01T09:00:00Z', 'u1', 's1', {
    groups: ['g1', 'g2'],
    properties: { price: '10' },
    duration: 1000,
    revenue: 500,
    path: '/a',
    country: 'DE',
  }), // e1
  ev('buy', '2024-03-01T10:00:00Z', 'u1', 's1', { groups: ['g2'], properties: { price: '2.5' }, duration: 3000, path: '/b' }), // e2
  ev('buy', '2024-03-01T11:00:00Z', 'u2', 's3', { groups: [], properties: { price: 'abc' }, revenue: 100, path: '/a' }), // e3
  ev('buy', '2024-03-02T09:00:00Z', 'u2', 's4', { groups: ['g3'], properties: { price: '-4' }, path: '/a' }), // e4
  ev('buy', '2024-03-02T10:00:00Z', 'u3', 's5', { properties: { price: '1e1' }, path: '/c' }), // e5
  ev('buy', '2024-03-02T11:00:00Z', 'u3', 's7', { groups: ['g3', 'g1'], properties: { price: '0.25' }, path: '/c' }), // e9
  ev('buy', '2024-03-03T08:00:00Z', 'u3', 's5', { properties: { price: ' 5' }, path: '/c' }), // e6
  ev('view', '2024-03-01T12:00:00Z', 'u4', 's6', { properties: { price: '100' }, path: '/a' }), // e7: other name
]
const WINDOW = { startDate: '2024-03-01', endDate: '2024-03-03', interval: 'day' }
const DATES = ['2024-03-01T00:00:00.000+00:00', '2024-03-02T00:00:00.000+00:00', '2024-03-03T00:00:00.000+00:00']

function chart(
  events: RawEvent[],
  query: Record<string, string>,
  projectTimezone = 'UTC',
  now = '2024-03-20T12:00:00Z',
): { status: number; body: any } {
  return answerChart({ events, projectTimezone, query, now: new Date(now) })
}

function ok(events: RawEvent[], query: Record<string, string>, projectTimezone = 'UTC'): any {
  const r = chart(events, query, projectTimezone)
  assert.equal(r.status, 200, `expected 200 for ${JSON.stringify(query)}`)
  return r.body
}

const counts = (series: any): Array<number | null> => series.data.map((d: any) => d.count)
const S = (value: unknown): string => JSON.stringify(value)

describe('reference model: charts', () => {
  it('rounds half away from zero and never gives -0', () => {
    assert.equal(round2(0.125), 0.13) // 12.5 + 0.5 = 13 -> 0.13 (0.125 is exact in binary)
    assert.equal(round2(-0.125), -0.13)
    assert.equal(round2(2.0 / 3), 0.67)
    assert.ok(Object.is(round2(-0), 0))
    assert.ok(Object.is(round2(-0.001), 0))
  })

  it('computes the event segment with the full response shape', () => {
    // buy per day: d1 {e1,e2,e3} = 3, d2 {e4,e5,e9} = 3, d3 {e6} = 1 (e0 before the window, e7 is "view").
    // sum 7, average 7/3 = 2.333.. -> 2.33, min 1, max 3.
    const body = ok(D, { ...WINDOW, series: S([{ name: 'buy', displayName: 'Purchases' }]) })
    assert.deepEqual(body, {
      series: [
        {
          id: 'A',
          names: ['Purchases'],
          event: { id: 'A', name: 'buy', breakdowns: {} },
          metrics: { sum: 7, average: 2.33, min: 1, max: 3 },
          data: [
            { date: DATES[0], count: 3 },
            { date: DATES[1], count: 3 },
            { date: DATES[2], count: 1 },
          ],
        },
      ],
      metrics: { sum: 7, average: 2.33, min: 1, max: 3 },
    })
  })

  it('computes every segment per bucket', () => {
    const one = (item: Record<string, unknown>): any => ok(D, { ...WINDOW, series: S([{ name: 'buy', ...item }]) }).series[0]
    // user: d1 {u1,u2} = 2, d2 {u2,u3} = 2, d3 {u3} = 1.
    assert.deepEqual(counts(one({ segment: 'user' })), [2, 2, 1])
    // session: d1 {s1,s3} = 2 (e1, e2 share s1), d2 {s4,s5,s7} = 3, d3 {s5} = 1.
    assert.deepEqual(counts(one({ segment: 'session' })), [2, 3, 1])
    // group: d1 {g1,g2} ∪ {g2} ∪ {} = 2, d2 {g3} ∪ {} ∪ {g3,g1} = 2, d3 {} = 0.
    assert.deepEqual(counts(one({ segment: 'group' })), [2, 2, 0])
    // user_average: d1 3/2 = 1.5, d2 3/2 = 1.5, d3 1/1 = 1. sum 4, average 4/3 -> 1.33.
    const ua = one({ segment: 'user_average' })
    assert.deepEqual(counts(ua), [1.5, 1.5, 1])
    assert.deepEqual(ua.metrics, { sum: 4, average: 1.33, min: 1, max: 1.5 })
    // one_event_per_user: u1 first in window e1 (d1), u2 e3 (d1), u3 e5 (d2; e0 is before the window).
    assert.deepEqual(counts(one({ segment: 'one_event_per_user' })), [2, 1, 0])
    // property_sum of properties.price: d1 10 + 2.5 ("abc" skipped) = 12.5; d2 -4 + 10 ("1e1") + 0.25
    // = 6.25; d3 " 5" is not a number -> 0. sum 18.75, average 6.25, min 0, max 12.5.
    const ps = one({ segment: 'property_sum', property: 'properties.price' })
    assert.deepEqual(counts(ps), [12.5, 6.25, 0])
    assert.deepEqual(ps.metrics, { sum: 18.75, average: 6.25, min: 0, max: 12.5 })
    // property_average: d1 12.5/2 = 6.25, d2 6.25/3 = 2.0833.. -> 2.08, d3 0.
    // metrics from unrounded values: sum 8.3333.. -> 8.33, average 8.3333../3 = 2.7777.. -> 2.78.
    const pa = one({ segment: 'property_average', property: 'properties.price' })
    assert.deepEqual(counts(pa), [6.25, 2.08, 0])
    assert.deepEqual(pa.metrics, { sum: 8.33, average: 2.78, min: 0, max: 6.25 })
    // property_min: d1 min(10, 2.5) = 2.5, d2 min(-4, 10, 0.25) = -4, d3 0. sum -1.5, average -0.5.
    const pmin = one({ segment: 'property_min', property: 'properties.price' })
    assert.deepEqual(counts(pmin), [2.5, -4, 0])
    assert.deepEqual(pmin.metrics, { sum: -1.5, average: -0.5, min: -4, max: 2.5 })
    // property_max: d1 10, d2 max(-4, 10, 0.25) = 10, d3 0.
    assert.deepEqual(counts(one({ segment: 'property_max', property: 'properties.price' })), [10, 10, 0])
    // Numeric columns: duration sum d1 1000 + 3000 + 0 = 4000; revenue average d1 (500 + 0 + 100)/3 = 200.
    assert.deepEqual(counts(one({ segment: 'property_sum', property: 'duration' })), [4000, 0, 0])
    assert.deepEqual(counts(one({ segment: 'property_average', property: 'revenue' })), [200, 0, 0])
    // A missing key reads "" (not a number): every bucket 0.
    assert.deepEqual(counts(one({ segment: 'property_max', property: 'properties.nope' })), [0, 0, 0])
  })

  it('selects events by name ("*" = all) and by filters on the event row', () => {
    // "*": d1 adds e7 (view) -> 4, d2 3, d3 1.
    assert.deepEqual(counts(ok(D, { ...WINDOW, series: S([{ name: '*' }]) }).series[0]), [4, 3, 1])
    // path is /a: e1, e3 (d1), e4 (d2); country (a session attribute) reads the event's column: only e1.
    const f = (filters: unknown[]): Array<number | null> => counts(ok(D, { ...WINDOW, series: S([{ name: 'buy', filters }]) }).series[0])
    assert.deepEqual(f([{ name: 'path', operator: 'is', value: ['/a'] }]), [2, 1, 0])
    assert.deepEqual(f([{ name: 'country', operator: 'is', value: ['DE'] }]), [1, 0, 0])
    // price >= 2.5: e1 (10), e2 (2.5), e5 (10) -> [2, 1, 0].
    assert.deepEqual(f([{ name: 'properties.price', operator: 'gte', value: [2.5] }]), [2, 1, 0])
  })

  it('ranks breakdown groups by the whole-window aggregate, then values ascending, and keeps breakdownLimit', () => {
    // segment user, breakdown path. Whole-window distinct users: /a {u1 (e1), u2 (e3, e4)} = 2,
    // /b {u1} = 1, /c {u3} = 1. (A sum of buckets would give /c 1 + 1 = 2 > /b.) Ties /b, /c -> "/b" < "/c".
    // breakdownLimit 2 keeps /a, /b.
    const body = ok(D, {
      ...WINDOW,
      series: S([{ name: 'buy', segment: 'user' }]),
      breakdowns: S([{ name: 'path' }]),
      breakdownLimit: '2',
    })
    assert.deepEqual(
      body.series.map((s: any) => [s.id, s.names, s.event, counts(s)]),
      [
        // /a: d1 {u1, u2} = 2, d2 {u2} = 1, d3 0
        ['A-1', ['buy', '/a'], { id: 'A', name: 'buy', breakdowns: { path: '/a' } }, [2, 1, 0]],
        // /b: d1 {u1} = 1
        ['A-2', ['buy', '/b'], { id: 'A', name: 'buy', breakdowns: { path: '/b' } }, [1, 0, 0]],
      ],
    )
    // Top-level: sum 3 + 1 = 4; average over 6 bucket values 4/6 = 0.666.. -> 0.67; min 0, max 2.
    assert.deepEqual(body.metrics, { sum: 4, average: 0.67, min: 0, max: 2 })

    // Event count with two breakdowns [path, country], displayName. Groups (whole-window counts):
    // [/a, DE] e1 = 1; [/a, ""] e3, e4 = 2; [/b, ""] e2 = 1; [/c, ""] e5, e9, e6 = 3.
    // Rank: [/c,""] 3, [/a,""] 2, then ties at 1 by values element-wise: [/a, DE] < [/b, ""] ("/a" < "/b").
    const two = ok(D, { ...WINDOW, series: S([{ name: 'buy', displayName: 'B' }]), breakdowns: S([{ name: 'path' }, { name: 'country' }]) })
    assert.deepEqual(
      two.series.map((s: any) => [s.id, s.names, s.event.breakdowns, counts(s)]),
      [
        ['A-1', ['B', '/c', ''], { path: '/c', country: '' }, [0, 2, 1]],
        ['A-2', ['B', '/a', ''], { path: '/a', country: '' }, [1, 1, 0]],
        ['A-3', ['B', '/a', 'DE'], { path: '/a', country: 'DE' }, [1, 0, 0]],
        ['A-4', ['B', '/b', ''], { path: '/b', country: '' }, [1, 0, 0]],
      ],
    )

    // Two items: each ranked on its own, items in order. B = "view": one group /a.
    const items = ok(D, {
      ...WINDOW,
      series: S([{ name: 'buy' }, { name: 'view' }]),
      breakdowns: S([{ name: 'path' }]),
      breakdownLimit: '1',
    })
    // buy: /c 3 > /a 3? tie: /a {e1,e3,e4} = 3 and /c {e5,e9,e6} = 3 -> "/a" first.
    assert.deepEqual(
      items.series.map((s: any) => [s.id, s.names, counts(s)]),
      [
        ['A-1', ['buy', '/a'], [2, 1, 0]],
        ['B-1', ['view', '/a'], [1, 0, 0]],
      ],
    )
  })

  it('counts one_event_per_user once per group, in the bucket of the first event of that group', () => {
    // path /a: u1 first e1 (d1), u2 first e3 (d1) -> [2, 0, 0], total 2.
    // path /b: u1 e2 (d1) -> [1, 0, 0], total 1 (u1 also counted in /a: once per group).
    // path /c: u3 first in window e5 (d2) -> [0, 1, 0], total 1.  Ties /b, /c -> /b first.
    const body = ok(D, { ...WINDOW, series: S([{ name: 'buy', segment: 'one_event_per_user' }]), breakdowns: S([{ name: 'path' }]) })
    assert.deepEqual(
      body.series.map((s: any) => [s.id, s.names, counts(s)]),
      [
        ['A-1', ['buy', '/a'], [2, 0, 0]],
        ['A-2', ['buy', '/b'], [1, 0, 0]],
        ['A-3', ['buy', '/c'], [0, 1, 0]],
      ],
    )
  })

  it('group segment and property segments with breakdowns; zero-aggregate groups never appear', () => {
    // group segment by path: /a {g1,g2} ∪ {} ∪ {g3} = 3; /b {g2} = 1; /c {} ∪ {g3,g1} ∪ {} = 2.
    const g = ok(D, { ...WINDOW, series: S([{ name: 'buy', segment: 'group' }]), breakdowns: S([{ name: 'path' }]) })
    assert.deepEqual(
      g.series.map((s: any) => [s.id, s.names, counts(s)]),
      [
        ['A-1', ['buy', '/a'], [2, 1, 0]], // d1 {g1,g2}, d2 {g3}
        ['A-2', ['buy', '/c'], [0, 2, 0]], // d2 {g3,g1}
        ['A-3', ['buy', '/b'], [1, 0, 0]],
      ],
    )
    // property_sum of price broken down by price itself: "10" -> 10, "1e1" -> 10, "2.5" -> 2.5,
    // "0.25" -> 0.25, "-4" -> -4; "abc" and " 5" have no numeric value -> aggregate 0 -> absent.
    // Ties at 10: "10" < "1e1" bytewise ('0' 0x30 < 'e' 0x65).
    const p = ok(D, {
      ...WINDOW,
      series: S([{ name: 'buy', segment: 'property_sum', property: 'properties.price' }]),
      breakdowns: S([{ name: 'properties.price' }]),
    })
    assert.deepEqual(
      p.series.map((s: any) => [s.id, s.names, counts(s)]),
      [
        ['A-1', ['buy', '10'], [10, 0, 0]],
        ['A-2', ['buy', '1e1'], [0, 10, 0]],
        ['A-3', ['buy', '2.5'], [2.5, 0, 0]],
        ['A-4', ['buy', '0.25'], [0, 0.25, 0]],
        ['A-5', ['buy', '-4'], [0, -4, 0]],
      ],
    )
    // Top-level: sum 10 + 10 + 2.5 + 0.25 - 4 = 18.75; average 18.75 / 15 = 1.25; min -4; max 10.
    assert.deepEqual(p.metrics, { sum: 18.75, average: 1.25, min: -4, max: 10 })
  })

  it('evaluates formulas per bucket on unrounded values; division by zero gives null', () => {
    // A = buy count [3, 3, 1]; B = buy group segment [2, 2, 0]; C = A / B * 100 = [150, 150, null].
    // D = (B + 0.5) * -A + 1: d1 (2.5)(-3) + 1 = -6.5, d2 -6.5, d3 (0.5)(-1) + 1 = 0.5.
    // E = A / 3 (unrounded 1, 1, 0.333..) * 3 = [3, 3, 1] exactly as A — values are not rounded between.
    const body = ok(D, {
      ...WINDOW,
      series: S([
        { name: 'buy' },
        { name: 'buy', segment: 'group' },
        { type: 'formula', formula: 'A / B * 100', displayName: 'ratio' },
        { type: 'formula', formula: '(B + 0.5) * -A + 1' },
        { type: 'formula', formula: 'A/3*3' },
      ]),
    })
    const [, , c, d, e] = body.series
    assert.deepEqual([c.id, c.names, c.event], ['C', ['ratio'], { id: 'C', name: 'A / B * 100', breakdowns: {} }])
    assert.deepEqual(counts(c), [150, 150, null])
    // Nulls skipped in the metrics: sum 300, average 300/2 = 150, min 150, max 150.
    assert.deepEqual(c.metrics, { sum: 300, average: 150, min: 150, max: 150 })
    assert.deepEqual([d.names, counts(d)], [['(B + 0.5) * -A + 1'], [-6.5, -6.5, 0.5]])
    assert.deepEqual(counts(e), [3, 3, 1])
    // Top-level over all 15 bucket values, the null skipped (14 values):
    // sums: A 7, B 4, C 300, D -12.5, E 7 -> 305.5; average 305.5 / 14 = 21.821.. -> 21.82;
    // min -6.5; max 150.
    assert.deepEqual(body.metrics, { sum: 305.5, average: 21.82, min: -6.5, max: 150 })

    // A formula may name a later event item.
    const later = ok(D, { ...WINDOW, series: S([{ type: 'formula', formula: 'B+0.5' }, { name: 'buy' }]) })
    assert.deepEqual(counts(later.series[0]), [3.5, 3.5, 1.5])
    // All-null formula: A/(A-A) -> every bucket null, metrics all null.
    const allNull = ok(D, { ...WINDOW, series: S([{ name: 'buy' }, { type: 'formula', formula: 'A/(A-A)' }]) })
    assert.deepEqual(counts(allNull.series[1]), [null, null, null])
    assert.deepEqual(allNull.series[1].metrics, { sum: null, average: null, min: null, max: null })
  })

  it('evaluates a formula per group of the union of the kept groups of its items; 0 where an item did not keep the group', () => {
    // A = buy by path, limit 1: /a 3 and /c 3 tie, values ascending -> keeps /a [2, 1, 0] (e1 e3 | e4).
    // B = buy on /c: keeps /c [0, 2, 1] (e5 e9 | e6).
    // C = A-B over {/a, /c}: /a = [2, 1, 0] - 0 = [2, 1, 0], sum 3; /c = 0 - [0, 2, 1] = [0, -2, -1], sum -3
    // (A has /c events but did not keep /c, so it counts 0 there, not [0, 2, 1]). Ranked by sum: /a, /c.
    const body = ok(D, {
      ...WINDOW,
      series: S([
        { name: 'buy' },
        { name: 'buy', filters: [{ name: 'path', operator: 'is', value: ['/c'] }] },
        { type: 'formula', formula: 'A-B' },
      ]),
      breakdowns: S([{ name: 'path' }]),
      breakdownLimit: '1',
    })
    assert.deepEqual(
      body.series.map((series: any) => [series.id, series.names, series.event, counts(series)]),
      [
        ['A-1', ['buy', '/a'], { id: 'A', name: 'buy', breakdowns: { path: '/a' } }, [2, 1, 0]],
        ['B-1', ['buy', '/c'], { id: 'B', name: 'buy', breakdowns: { path: '/c' } }, [0, 2, 1]],
        ['C-1', ['A-B', '/a'], { id: 'C', name: 'A-B', breakdowns: { path: '/a' } }, [2, 1, 0]],
        ['C-2', ['A-B', '/c'], { id: 'C', name: 'A-B', breakdowns: { path: '/c' } }, [0, -2, -1]],
      ],
    )
    assert.deepEqual(body.series[3].metrics, { sum: -3, average: -1, min: -2, max: 0 })
    // All 12 values: 3 + 3 + 3 - 3 = 6, mean 0.5.
    assert.deepEqual(body.metrics, { sum: 6, average: 0.5, min: -2, max: 2 })
  })

  describe('previous=true across the Berlin DST change (2024-03-31, 02:00 -> 03:00)', () => {
    it('day buckets: the previous window has more buckets (its extra ones count in its sum only)', () => {
      // Current: startDate 2024-03-31T12:00+02:00 (10:00Z), endDate 2024-04-02 (date-only: 2024-04-03
      // 00:00+02:00 = 04-02T22:00Z). L = 60 h. Buckets: 03-31 (00:00+01:00), 04-01, 04-02 -> 3.
      // Previous: [03-28T22:00Z, 03-31T10:00Z) = [03-28 23:00+01:00, 03-31 12:00+02:00).
      // Buckets: 03-28, 03-29, 03-30, 03-31 -> 4.
      const events = [
        ev('buy', '2024-03-28T21:00:00Z', 'u', 's'), // 03-28 22:00+01: bucket 03-28 but before the previous window
        ev('buy', '2024-03-28T22:30:00Z', 'u', 's'), // prev bucket 0 (03-28)
        ev('buy', '2024-03-29T12:00:00Z', 'u', 's'), // prev bucket 1
        ev('buy', '2024-03-29T13:00:00Z', 'u', 's'), // prev bucket 1
        ev('buy', '2024-03-31T09:59:59.999Z', 'u', 's'), // 11:59:59.999+02: prev bucket 3 (03-31)
        ev('buy', '2024-03-31T10:00:00Z', 'u', 's'), // current bucket 0 (the start itself)
        ev('buy', '2024-03-31T21:59:00Z', 'u', 's'), // 23:59+02: current bucket 0
        ev('buy', '2024-03-31T22:00:00Z', 'u', 's'), // 04-01 00:00+02: current bucket 1
        ev('buy', '2024-04-02T21:59:59.999Z', 'u', 's'), // current bucket 2
        ev('buy', '2024-04-02T22:00:00Z', 'u', 's'), // the end: out
      ]
      // Current [2, 1, 1] (sum 4); previous buckets [1, 2, 0, 1] (sum 4).
      // B = 100 / A: current [50, 100, 100]; previous [100, 50, null, 100].
      const body = ok(
        events,
        {
          startDate: '2024-03-31T12:00:00+02:00',
          endDate: '2024-04-02',
          interval: 'day',
          previous: 'true',
          series: S([{ name: 'buy' }, { type: 'formula', formula: '100 / A' }]),
        },
        'Europe/Berlin',
      )
      const [a, b] = body.series
      assert.deepEqual(a.data, [
        // (2 - 1) / 1 × 100 = 100
        { date: '2024-03-31T00:00:00.000+01:00', count: 2, previous: { value: 1, diff: 100, state: 'positive' } },
        // (1 - 2) / 2 × 100 = -50
        { date: '2024-04-01T00:00:00.000+02:00', count: 1, previous: { value: 2, diff: -50, state: 'negative' } },
        // previous 0 -> diff null
        { date: '2024-04-02T00:00:00.000+02:00', count: 1, previous: { value: 0, diff: null, state: 'neutral' } },
      ])
      // sum 4, average 4/3 -> 1.33; previous sum over all 4 previous buckets = 4 -> diff 0, neutral.
      assert.deepEqual(a.metrics, { sum: 4, average: 1.33, min: 1, max: 2, previous: { value: 4, diff: 0, state: 'neutral' } })
      assert.deepEqual(
        b.data.map((d: any) => [d.count, d.previous]),
        [
          [50, { value: 100, diff: -50, state: 'negative' }], // (50 - 100) / 100 × 100
          [100, { value: 50, diff: 100, state: 'positive' }], // (100 - 50) / 50 × 100
          [100, { value: null, diff: null, state: 'neutral' }], // 100 / 0 in the previous bucket
        ],
      )
      // B: sum 250, average 250/3 = 83.33, min 50, max 100; previous sum 100 + 50 + 100 = 250 (null
      // skipped) -> diff 0.
      assert.deepEqual(b.metrics, { sum: 250, average: 83.33, min: 50, max: 100, previous: { value: 250, diff: 0, state: 'neutral' } })
      // Top-level (no previous key): sum 4 + 250 = 254; average 254 / 6 = 42.33; min 1; max 100.
      assert.deepEqual(body.metrics, { sum: 254, average: 42.33, min: 1, max: 100 })
    })

    it('hour buckets: the previous window has fewer buckets (value 0 past its last one)', () => {
      // Current [00:45Z, 02:15Z) = [01:45+01:00, 04:15+02:00), L = 90 min. Hour buckets:
      // 01:00+01:00 (00:00Z), 03:00+02:00 (01:00Z; 02:00 local does not exist), 04:00+02:00 (02:00Z) -> 3.
      // Previous [23:15Z, 00:45Z) = [00:15+01:00, 01:45+01:00): buckets 00:00+01:00, 01:00+01:00 -> 2.
      const events = [
        ev('buy', '2024-03-30T23:10:00Z', 'u', 's'), // before the previous window
        ev('buy', '2024-03-30T23:20:00Z', 'u', 's'), // prev bucket 0
        ev('buy', '2024-03-31T00:10:00Z', 'u', 's'), // prev bucket 1 (also inside current bucket 0's hour, but before start)
        ev('buy', '2024-03-31T00:44:59.999Z', 'u', 's'), // prev bucket 1
        ev('buy', '2024-03-31T00:45:00Z', 'u', 's'), // current bucket 0
        ev('buy', '2024-03-31T01:30:00Z', 'u', 's'), // current bucket 1 (03:30+02:00)
        ev('buy', '2024-03-31T02:00:00Z', 'u', 's'), // current bucket 2
        ev('buy', '2024-03-31T02:14:59.999Z', 'u', 's'), // current bucket 2
        ev('buy', '2024-03-31T02:15:00Z', 'u', 's'), // the end: out
      ]
      const body = ok(
        events,
        {
          startDate: '2024-03-31T00:45:00Z',
          endDate: '2024-03-31T02:15:00Z',
          interval: 'hour',
          previous: 'true',
          series: S([{ name: 'buy' }]),
        },
        'Europe/Berlin',
      )
      // Current [1, 1, 2] (sum 4); previous [1, 2] (sum 3).
      assert.deepEqual(body.series[0].data, [
        { date: '2024-03-31T01:00:00.000+01:00', count: 1, previous: { value: 1, diff: 0, state: 'neutral' } },
        { date: '2024-03-31T03:00:00.000+02:00', count: 1, previous: { value: 2, diff: -50, state: 'negative' } },
        { date: '2024-03-31T04:00:00.000+02:00', count: 2, previous: { value: 0, diff: null, state: 'neutral' } },
      ])
      // (4 - 3) / 3 × 100 = 33.333.. -> 33.33. average 4/3 -> 1.33.
      assert.deepEqual(body.series[0].metrics, {
        sum: 4,
        average: 1.33,
        min: 1,
        max: 2,
        previous: { value: 3, diff: 33.33, state: 'positive' },
      })
      // previous=false: no previous keys at all.
      const plain = ok(
        events,
        {
          startDate: '2024-03-31T00:45:00Z',
          endDate: '2024-03-31T02:15:00Z',
          interval: 'hour',
          previous: 'false',
          series: S([{ name: 'buy' }]),
        },
        'Europe/Berlin',
      )
      assert.deepEqual(plain.series[0].metrics, { sum: 4, average: 1.33, min: 1, max: 2 })
      assert.ok(plain.series[0].data.every((d: any) => !('previous' in d)))
    })

    it('breakdown groups keep their current rank; previous values are the same group in the previous window', () => {
      // Whole day 2024-03-31 in Berlin = 23 h: [03-30T23:00Z, 03-31T22:00Z), interval day -> 1 bucket.
      // Previous: [03-30T00:00Z, 03-30T23:00Z) = [03-30 01:00+01:00, 03-31 00:00+01:00) -> bucket 03-30.
      const events = [
        ev('buy', '2024-03-31T08:00:00Z', 'u', 's', { path: '/x' }),
        ev('buy', '2024-03-31T09:00:00Z', 'u', 's', { path: '/x' }),
        ev('buy', '2024-03-31T10:00:00Z', 'u', 's', { path: '/y' }),
        ev('buy', '2024-03-30T10:00:00Z', 'u', 's', { path: '/y' }),
        ev('buy', '2024-03-30T11:00:00Z', 'u', 's', { path: '/y' }),
        ev('buy', '2024-03-30T12:00:00Z', 'u', 's', { path: '/y' }),
        ev('buy', '2024-03-30T12:00:00Z', 'u', 's', { path: '/z' }), // only in the previous window: no series
        ev('buy', '2024-03-29T23:59:59.999Z', 'u', 's', { path: '/x' }), // 03-30 00:59+01: before the previous window
      ]
      const body = ok(
        events,
        {
          startDate: '2024-03-31',
          endDate: '2024-03-31',
          previous: 'true',
          interval: 'day',
          series: S([{ name: 'buy' }]),
          breakdowns: S([{ name: 'path' }]),
        },
        'Europe/Berlin',
      )
      assert.deepEqual(
        body.series.map((s: any) => [s.id, s.data[0].count, s.data[0].previous, s.metrics.previous]),
        [
          // /x: 2 now, 0 before -> diff null
          ['A-1', 2, { value: 0, diff: null, state: 'neutral' }, { value: 0, diff: null, state: 'neutral' }],
          // /y: 1 now, 3 before -> (1 - 3) / 3 × 100 = -66.666.. -> -66.67
          ['A-2', 1, { value: 3, diff: -66.67, state: 'negative' }, { value: 3, diff: -66.67, state: 'negative' }],
        ],
      )
      assert.equal(body.series[0].data[0].date, '2024-03-31T00:00:00.000+01:00')
    })
  })

  it('caps series items × buckets × breakdownLimit × 2 at 20,000', () => {
    // 10 items (9 events + 1 formula), minute buckets, previous: 10 × 1000 × 2 = 20,000 -> allowed;
    // 1001 buckets -> 20,020 -> 400.
    const ten = S([...Array.from({ length: 9 }, () => ({ name: 'buy' })), { type: 'formula', formula: 'A+B' }])
    const q = { series: ten, interval: 'minute', previous: 'true', startDate: '2024-03-01T00:00:00Z' }
    assert.equal(chart(D, { ...q, endDate: '2024-03-01T16:40:00Z' }).status, 200)
    assert.equal(chart(D, { ...q, endDate: '2024-03-01T16:41:00Z' }).status, 400)
    // With breakdowns: 1 item × 100 day buckets × 100 × 2 = 20,000 -> allowed; 101 days -> 20,200 -> 400.
    const b = {
      series: S([{ name: 'buy' }]),
      breakdowns: S([{ name: 'path' }]),
      breakdownLimit: '100',
      interval: 'day',
      previous: 'true',
      startDate: '2024-01-01',
    }
    assert.equal(chart(D, { ...b, endDate: '2024-04-09' }).status, 200) // 2024-01-01 .. 04-09 = 31+29+31+9 = 100 days
    assert.equal(chart(D, { ...b, endDate: '2024-04-10' }).status, 400)
    // Without previous the same 101 days pass (10,100); the default breakdownLimit 10 too.
    assert.equal(chart(D, { ...b, endDate: '2024-04-10', previous: 'false' }).status, 200)
  })

  it('uses the defaults: range 30d, interval by window length, zone of the project', () => {
    // now 2024-03-20T12:00Z, UTC: 30d = [D1 − 30 days, D1) = [02-20, 03-21) (2024 is a leap year);
    // length 30 days <= 92 -> day buckets: 30.
    const body = ok(D, { series: S([{ name: 'buy' }]) })
    assert.equal(body.series[0].data.length, 30)
    assert.equal(body.series[0].data[0].date, '2024-02-20T00:00:00.000+00:00')
    // e0 (02-29) through e6 (03-03): 8 buy events in the window.
    assert.equal(body.series[0].metrics.sum, 8)
    // projectId is accepted and ignored; range today -> 24 hour buckets.
    assert.equal(ok(D, { projectId: 'p1', range: 'today', series: S([{ name: 'buy' }]) }).series[0].data.length, 24)
  })

  it('answers 400 for every invalid request', () => {
    const base = { ...WINDOW }
    const item = { name: 'buy' }
    const bad: Array<[string, Record<string, string>]> = [
      ['unknown parameter', { ...base, series: S([item]), foo: '1' }],
      ['no series', { ...base }],
      ['malformed series JSON', { ...base, series: '[{' }],
      ['series not an array', { ...base, series: S(item) }],
      ['series empty', { ...base, series: S([]) }],
      ['series of 11 items', { ...base, series: S(Array.from({ length: 11 }, () => item)) }],
      ['item not an object', { ...base, series: S(['buy']) }],
      ['unknown item key', { ...base, series: S([{ name: 'buy', color: 'red' }]) }],
      ['item without name', { ...base, series: S([{ segment: 'user' }]) }],
      ['empty name', { ...base, series: S([{ name: '' }]) }],
      ['name not a string', { ...base, series: S([{ name: 3 }]) }],
      ['unknown segment', { ...base, series: S([{ name: 'buy', segment: 'users' }]) }],
      ['property missing', { ...base, series: S([{ name: 'buy', segment: 'property_sum' }]) }],
      ['property on a non-property segment', { ...base, series: S([{ name: 'buy', segment: 'event', property: 'duration' }]) }],
      ['property on the default segment', { ...base, series: S([{ name: 'buy', property: 'properties.price' }]) }],
      ['property not properties.<key>', { ...base, series: S([{ name: 'buy', segment: 'property_max', property: 'price' }]) }],
      ['property with an empty key', { ...base, series: S([{ name: 'buy', segment: 'property_max', property: 'properties.' }]) }],
      ['property a non-numeric column', { ...base, series: S([{ name: 'buy', segment: 'property_max', property: 'path' }]) }],
      ['displayName not a string', { ...base, series: S([{ name: 'buy', displayName: 1 }]) }],
      ['filters not an array', { ...base, series: S([{ name: 'buy', filters: { name: 'path' } }]) }],
      ['unknown filter name', { ...base, series: S([{ name: 'buy', filters: [{ name: 'nope', operator: 'is', value: ['x'] }] }]) }],
      ['entry_path filter', { ...base, series: S([{ name: 'buy', filters: [{ name: 'entry_path', operator: 'is', value: ['/'] }] }]) }],
      ['entry_origin filter', { ...base, series: S([{ name: 'buy', filters: [{ name: 'entry_origin', operator: 'isNotNull' }] }]) }],
      [
        'numeric operator off properties',
        { ...base, series: S([{ name: 'buy', filters: [{ name: 'path', operator: 'gt', value: [1] }] }]) },
      ],
      ['operator without values', { ...base, series: S([{ name: 'buy', filters: [{ name: 'path', operator: 'is', value: [] }] }]) }],
      ['bad regex', { ...base, series: S([{ name: 'buy', filters: [{ name: 'path', operator: 'regex', value: ['('] }] }]) }],
      ['breakdowns malformed', { ...base, series: S([item]), breakdowns: '[' }],
      ['breakdowns not an array', { ...base, series: S([item]), breakdowns: S({ name: 'path' }) }],
      [
        '4 breakdowns',
        { ...base, series: S([item]), breakdowns: S([{ name: 'path' }, { name: 'origin' }, { name: 'title' }, { name: 'os' }]) },
      ],
      ['unknown breakdown', { ...base, series: S([item]), breakdowns: S([{ name: 'nope' }]) }],
      ['entry_path breakdown', { ...base, series: S([item]), breakdowns: S([{ name: 'entry_path' }]) }],
      ['entry_origin breakdown', { ...base, series: S([item]), breakdowns: S([{ name: 'entry_origin' }]) }],
      ['properties. breakdown', { ...base, series: S([item]), breakdowns: S([{ name: 'properties.' }]) }],
      ['breakdown extra key', { ...base, series: S([item]), breakdowns: S([{ name: 'path', limit: 3 }]) }],
      ['breakdown not an object', { ...base, series: S([item]), breakdowns: S(['path']) }],
      ['breakdownLimit 0', { ...base, series: S([item]), breakdownLimit: '0' }],
      ['breakdownLimit 101', { ...base, series: S([item]), breakdownLimit: '101' }],
      ['breakdownLimit 2.5', { ...base, series: S([item]), breakdownLimit: '2.5' }],
      ['breakdownLimit text', { ...base, series: S([item]), breakdownLimit: 'ten' }],
      ['bad interval', { ...base, series: S([item]), interval: 'year' }],
      ['bad range', { series: S([item]), range: '2d' }],
      ['custom without startDate', { series: S([item]), range: 'custom' }],
      ['endDate alone', { series: S([item]), endDate: '2024-03-03' }],
      ['bad startDate', { series: S([item]), startDate: '2024-02-30' }],
      ['start >= end', { series: S([item]), startDate: '2024-03-03', endDate: '2024-03-02' }],
      ['bad timezone', { ...base, series: S([item]), timezone: 'Europe/Nowhere' }],
      ['lower-case timezone', { ...base, series: S([item]), timezone: 'europe/berlin' }],
      ['previous not a boolean', { ...base, series: S([item]), previous: '1' }],
      ['previous TRUE', { ...base, series: S([item]), previous: 'TRUE' }],
      [
        'formula naming a formula',
        { ...base, series: S([item, { type: 'formula', formula: 'A*2' }, { type: 'formula', formula: 'B+1' }]) },
      ],
      ['formula naming itself', { ...base, series: S([item, { type: 'formula', formula: 'B' }]) }],
      ['formula naming a missing letter', { ...base, series: S([item, { type: 'formula', formula: 'A+C' }]) }],
      ['formula letter past J', { ...base, series: S([item, { type: 'formula', formula: 'K' }]) }],
      ['formula lower-case letter', { ...base, series: S([item, { type: 'formula', formula: 'a*2' }]) }],
      ['formula unknown operator', { ...base, series: S([item, { type: 'formula', formula: 'A^2' }]) }],
      ['formula unbalanced', { ...base, series: S([item, { type: 'formula', formula: '(A+1' }]) }],
      ['formula extra paren', { ...base, series: S([item, { type: 'formula', formula: 'A+1)' }]) }],
      ['formula empty', { ...base, series: S([item, { type: 'formula', formula: '' }]) }],
      ['formula blank', { ...base, series: S([item, { type: 'formula', formula: '  ' }]) }],
      ['formula dangling operator', { ...base, series: S([item, { type: 'formula', formula: 'A*' }]) }],
      ['formula adjacent operands', { ...base, series: S([item, { type: 'formula', formula: '2A' }]) }],
      ['formula number without fraction digits', { ...base, series: S([item, { type: 'formula', formula: 'A*1.' }]) }],
      ['formula number without integer digits', { ...base, series: S([item, { type: 'formula', formula: 'A*.5' }]) }],
      ['formula exponent', { ...base, series: S([item, { type: 'formula', formula: 'A*1e2' }]) }],
      ['formula unary plus', { ...base, series: S([item, { type: 'formula', formula: '+A' }]) }],
      ['formula not a string', { ...base, series: S([item, { type: 'formula', formula: 2 }]) }],
      ['formula missing', { ...base, series: S([item, { type: 'formula' }]) }],
      ['formula unknown key', { ...base, series: S([item, { type: 'formula', formula: 'A', name: 'x' }]) }],
      ['formula displayName not a string', { ...base, series: S([item, { type: 'formula', formula: 'A', displayName: null }]) }],
      ['unknown item type', { ...base, series: S([{ type: 'event', name: 'buy' }]) }],
      ['cap exceeded', { series: S([item]), interval: 'minute', startDate: '2024-03-01T00:00:00Z', endDate: '2024-03-15T00:00:00Z' }],
    ]
    for (const [label, query] of bad) {
      const r = chart(D, query)
      assert.deepEqual(r, { status: 400, body: null }, label)
    }
    // Valid edge cases of the same grammar: spaces, unary minus (repeated), nested parentheses,
    // a formula before its event items, all ten letters' worth of items.
    const good: Array<[string, string]> = [
      ['spaces and unary minus', ' - ( A + 2.50 ) / - - B '],
      ['nested parentheses', '((A))*(B-(1))'],
    ]
    for (const [label, formula] of good) {
      const r = chart(D, { ...base, series: S([item, { name: 'view' }, { type: 'formula', formula }]) })
      assert.equal(r.status, 200, label)
    }
    // - (A + 2.5) / --B: d1 A 3, B (view) 1 -> -5.5 / 1 = -5.5; d2 B 0 -> null; d3 null.
    const r = ok(D, { ...base, series: S([item, { name: 'view' }, { type: 'formula', formula: ' - ( A + 2.50 ) / - - B ' }]) })
    assert.deepEqual(counts(r.series[2]), [-5.5, null, null])
  })
})
