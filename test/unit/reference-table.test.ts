// Hand-worked examples for the table's reference model (test/reference/table.ts): a visitor converting in one
// of two rows, ties on a rounded rate falling back to the dimensions with null last, a session whose events
// run past the window's end, the flat filters narrowing the views counted, and the requests it refuses.
import assert from 'node:assert/strict'
import type { RawEvent } from '../reference/model'
import { answerTable } from '../reference/table'

let seq = 0
function ev(session: string, visitor: string, name: string, at: string, extra: Partial<RawEvent> = {}): RawEvent {
  seq += 1
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    name,
    device_id: `dev-${visitor}`,
    profile_id: visitor,
    session_id: session,
    created_at: `2024-03-10T${at}Z`,
    origin: 'https://a.com',
    ...extra,
  }
}

const EVENTS: RawEvent[] = [
  // v1, Chrome on /home: 3 views, 2 min, a signup.
  ev('a', 'v1', 'screen_view', '09:00:00.000', { path: '/home', browser: 'Chrome', utm_source: 'news' }),
  ev('a', 'v1', 'screen_view', '09:01:00.000', { path: '/pricing', browser: 'Chrome', utm_source: 'news' }),
  ev('a', 'v1', 'signup', '09:01:30.000', { path: '/pricing', browser: 'Chrome', utm_source: 'news' }),
  ev('a', 'v1', 'screen_view', '09:02:00.000', { path: '/done', browser: 'Chrome', utm_source: 'news' }),
  // v1 again, Chrome without a source: one view, no signup.
  ev('b', 'v1', 'screen_view', '10:00:00.000', { path: '/home', browser: 'Chrome' }),
  // v2, Chrome without a source: one view, a signup, 45 s, revenue 250 (an event just past the window's end).
  ev('c', 'v2', 'screen_view', '23:59:30.000', { path: '/home', browser: 'Chrome' }),
  {
    ...ev('c', 'v2', 'signup', '00:00:15.000', { path: '/home', browser: 'Chrome', revenue: 250 }),
    created_at: '2024-03-11T00:00:15.000Z',
  },
  // v3, Firefox: two views of /docs, 10 s.
  ev('d', 'v3', 'screen_view', '12:00:00.000', { path: '/docs', browser: 'Firefox', utm_source: 'news' }),
  ev('d', 'v3', 'screen_view', '12:00:10.000', { path: '/docs', browser: 'Firefox', utm_source: 'news' }),
]

const ask = (query: Record<string, string>) =>
  answerTable({
    events: EVENTS,
    projectTimezone: 'UTC',
    query: { startDate: '2024-03-10', endDate: '2024-03-10', ...query },
    now: new Date('2024-03-20T00:00:00Z'),
  })

const SIGNUP = JSON.stringify({ performed: { name: 'signup' } })

describe('reference model: /table', () => {
  it('groups by two dimensions with every metric, ties by the values with null last', () => {
    // (Chrome, news): a. (Chrome, null): b and c, v1 and v2. (Firefox, news): d.
    // Chrome/null: views 1 + 1, both bounce, (0 + 45) / 2 = 22.5 s, events 1 + 2, revenue 250, signup by v2: 1 of 2.
    const rows = ask({
      dimensions: 'browser,utm_source',
      metrics: 'sessions,visitors,pageviews,bounce_rate,avg_session_duration,views_per_session,events,conversion_rate',
      goal: SIGNUP,
    })
    assert.deepEqual(rows, {
      status: 200,
      next: false,
      body: [
        {
          browser: 'Chrome',
          utm_source: null,
          sessions: 2,
          visitors: 2,
          pageviews: 2,
          bounce_rate: 100,
          avg_session_duration: 22.5,
          views_per_session: 1,
          events: 3,
          conversion_rate: 50,
        },
        // Ties at one session: Chrome before Firefox.
        {
          browser: 'Chrome',
          utm_source: 'news',
          sessions: 1,
          visitors: 1,
          pageviews: 3,
          bounce_rate: 0,
          avg_session_duration: 120,
          views_per_session: 3,
          events: 4,
          conversion_rate: 100,
        },
        {
          browser: 'Firefox',
          utm_source: 'news',
          sessions: 1,
          visitors: 1,
          pageviews: 2,
          bounce_rate: 0,
          avg_session_duration: 10,
          views_per_session: 2,
          events: 2,
          conversion_rate: 0,
        },
      ],
    })
  })

  it('orders ascending by a rate, ties by the values, and pages', () => {
    // By utm_source: news (a, d): bounce 0; null (b, c): bounce 100.
    assert.deepEqual(ask({ dimensions: 'utm_source', metrics: 'bounce_rate', orderBy: 'bounce_rate:asc', limit: '1' }), {
      status: 200,
      next: true,
      body: [{ utm_source: 'news', bounce_rate: 0 }],
    })
    assert.deepEqual(ask({ dimensions: 'utm_source', metrics: 'bounce_rate', orderBy: 'bounce_rate:asc', limit: '1', cursor: '2' }), {
      status: 200,
      next: false,
      body: [{ utm_source: null, bounce_rate: 100 }],
    })
  })

  it('groups by entry and exit paths and counts only the views a flat filter keeps', () => {
    // path is /home: a, b and c have such an event; their views of /home: 1 each. Entries all /home; exits /done, /home, /home.
    assert.deepEqual(
      ask({
        dimensions: 'entry_path,exit_path',
        metrics: 'sessions,pageviews',
        filters: JSON.stringify([{ name: 'path', operator: 'is', value: ['/home'] }]),
      }).body,
      [
        { entry_path: '/home', exit_path: '/home', sessions: 2, pageviews: 2 },
        { entry_path: '/home', exit_path: '/done', sessions: 1, pageviews: 1 },
      ],
    )
  })

  it('refuses what the route refuses', () => {
    const refused: Record<string, string>[] = [
      { metrics: 'sessions' },
      { dimensions: 'browser' },
      { dimensions: 'browser,browser', metrics: 'sessions' },
      { dimensions: 'browser,os,device,country', metrics: 'sessions' },
      { dimensions: 'browser', metrics: 'sessions,nope' },
      { dimensions: 'browser', metrics: 'conversion_rate' },
      { dimensions: 'browser', metrics: 'sessions', goal: SIGNUP },
      { dimensions: 'browser', metrics: 'sessions', orderBy: 'visitors:desc' },
      { dimensions: 'browser', metrics: 'sessions', orderBy: 'sessions:up' },
      { dimensions: 'browser', metrics: 'sessions', limit: '100', cursor: '1002' },
    ]
    for (const query of refused) {
      assert.equal(ask(query).status, 400, JSON.stringify(query))
    }
  })
})
