// OpenPanel's shapes on the routes where Quarry's richer answer shares the path (docs/openpanel.md, "When
// shapes collide"), on hand-checked events: OpenPanel's parameters, defaults and shapes by default, Quarry's
// answer with `detail=true`, a next page in the `Link` header (and a batch result's `next`), and every
// refused request a 400 naming its problems.
import assert from 'node:assert/strict'
import { answerBehaviour } from '../reference/behaviour'
import type { RawEvent } from '../reference/model'
import { request } from '../support/openapi-request'
import { createProject } from '../../server/admin/control'
import { insertRawEvents, startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'UTC' }
const NOW = new Date('2024-03-20T00:00:00Z')
const ORIGIN = 'https://a.example'

let n = 0
const event = (options: {
  session: string
  profile: string
  name: string
  at: string
  path: string
  properties?: Record<string, string>
}): RawEvent => ({
  id: `00000000-0000-4000-8000-${String((n += 1)).padStart(12, '0')}`,
  name: options.name,
  device_id: `device-${options.session}`,
  profile_id: options.profile,
  session_id: options.session,
  created_at: options.at,
  origin: ORIGIN,
  path: options.path,
  properties: options.properties ?? {},
})
const on5th = (session: string, profile: string, name: string, time: string, path: string, properties?: Record<string, string>) =>
  event({ session, profile, name, at: `2024-03-05T${time}Z`, path, properties })

const EVENTS: RawEvent[] = [
  // The 5th of March (a Tuesday): four sessions, seven page views.
  on5th('s1', 'alice', 'screen_view', '10:00:00.000', '/a'),
  on5th('s1', 'alice', 'screen_view', '10:01:00.000', '/b'),
  on5th('s1', 'alice', 'screen_view', '10:02:00.000', '/a'),
  on5th('s2', 'bob', 'screen_view', '11:00:00.000', '/a'),
  on5th('s3', 'alice', 'signup', '12:00:00.000', '/x', { plan: 'pro' }),
  on5th('s3', 'alice', 'purchase', '12:01:00.000', '/y', { price: '10', plan: 'pro' }),
  on5th('s4', 'carol', 'screen_view', '13:00:00.000', '/b'),
  on5th('s4', 'carol', 'screen_view', '13:05:00.000', '/c'),
  on5th('s4', 'carol', 'screen_view', '13:06:00.000', '/b'),
  // Other weeks (weeks start on Monday): bob in the week of 26 February, alice in the weeks of 11 and 18 March.
  event({ session: 's0', profile: 'bob', name: 'screen_view', at: '2024-02-28T09:00:00.000Z', path: '/a' }),
  event({ session: 's5', profile: 'alice', name: 'screen_view', at: '2024-03-12T09:00:00.000Z', path: '/a' }),
  event({ session: 's6', profile: 'alice', name: 'screen_view', at: '2024-03-19T09:00:00.000Z', path: '/a' }),
]

const DAY = 'startDate=2024-03-05&endDate=2024-03-05'

describe("OpenPanel's shapes where Quarry's answer shares the path", function () {
  this.timeout(180_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, EVENTS))
    h.now = NOW
  })
  after(() => h.close())

  const get = (path: string) => request(h.app).get(`/insights/${PROJECT.id}/${path}`).set(auth)
  const issuesOf = async (path: string) => {
    const res = await get(path)
    assert.equal(res.status, 400, JSON.stringify(res.body))
    return (res.body.details.issues as { path: string[] }[]).map((issue) => issue.path.join('.')).sort()
  }

  describe('/events/names', () => {
    it("answers OpenPanel's array of names, most events first, then the name", async () => {
      const res = await get(`events/names?${DAY}`)
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, ['screen_view', 'purchase', 'signup'])
    })
    it("answers Quarry's rows with detail=true", async () => {
      const res = await get(`events/names?${DAY}&detail=true`)
      assert.deepEqual(res.body, [
        { name: 'screen_view', count: 7, lastSeen: '2024-03-05T13:06:00.000+00:00' },
        { name: 'purchase', count: 1, lastSeen: '2024-03-05T12:01:00.000+00:00' },
        { name: 'signup', count: 1, lastSeen: '2024-03-05T12:00:00.000+00:00' },
      ])
    })
    it('sends the next page in the Link header, in either shape', async () => {
      for (const detail of ['', '&detail=true']) {
        const res = await get(`events/names?${DAY}&limit=2${detail}`)
        assert.match(res.headers.link, /cursor=2.*rel="next"/)
        const next = await get(`events/names?${DAY}&limit=2&cursor=2${detail}`)
        assert.equal(next.headers.link, undefined)
      }
    })
    it('shares the cached rows between the two shapes of one question', async () => {
      const window = 'startDate=2024-03-04&endDate=2024-03-06&limit=10'
      const brief = await get(`events/names?${window}`)
      const detailed = await get(`events/names?${window}&detail=true`)
      assert.equal(brief.headers['x-cache'], 'miss')
      assert.equal(detailed.headers['x-cache'], 'hit')
      assert.deepEqual(brief.body, ['screen_view', 'purchase', 'signup'])
      assert.equal(detailed.body[0].count, 7)
    })
    it('refuses a detail that is not a boolean, with the other problems', async () => {
      assert.deepEqual(await issuesOf('events/names?detail=maybe&limit=0'), ['detail', 'limit'])
    })
  })

  describe("OpenPanel's defaults on the discovery routes", () => {
    it('reads the whole history without a window, 7 days with detail=true', async () => {
      // Today is 20 March: the 28 February and 5 March events are older than 7 days, the 12 and 19 March ones are not.
      assert.deepEqual((await get('events/names')).body, ['screen_view', 'purchase', 'signup'])
      assert.deepEqual((await get('events/names?detail=true')).body, [
        { name: 'screen_view', count: 1, lastSeen: '2024-03-19T09:00:00.000+00:00' },
      ])
      assert.deepEqual((await get('events/property_values?key=plan')).body, { event: null, property: 'plan', values: ['pro'], counts: [2] })
      assert.deepEqual((await get('events/properties?eventName=signup')).body.properties, [
        { property_key: 'plan', event_name: 'signup', count: 1 },
      ])
      assert.deepEqual((await get('events/properties?detail=true')).body, [])
    })
    it("pages by OpenPanel's lengths: 50 names, 500 keys, 200 values; Quarry's 10 with detail=true", async () => {
      const values = Array.from({ length: 205 }, (_, i) => `v${String(i).padStart(3, '0')}`)
      const many = values.map((value, i) =>
        event({
          session: `m${i}`,
          profile: 'dave',
          name: `e${String(i).padStart(3, '0')}`,
          at: '2024-01-10T09:00:00.000Z',
          path: '/m',
          properties: { [`k${String(i).padStart(3, '0')}`]: value, many: value },
        }),
      )
      await createProject(h.engine, { id: 'many', timezone: 'UTC' })
      await insertRawEvents(h.engine, many, 'many')
      const lengths = async (path: string) => {
        const res = await request(h.app).get(`/insights/many/${path}`).set(auth)
        assert.equal(res.status, 200, JSON.stringify(res.body))
        return { rows: [res.body, res.body.properties, res.body.values].find(Array.isArray)?.length, next: Boolean(res.headers.link) }
      }
      assert.deepEqual(await lengths('events/names'), { rows: 50, next: true })
      assert.deepEqual(await lengths('events/property_values?key=many'), { rows: 200, next: true })
      // 205 keys of their own and `many` on each of 205 names: 410 pairs.
      assert.deepEqual(await lengths('events/properties'), { rows: 410, next: false })
      assert.deepEqual(await lengths('events/names?startDate=2024-01-01&detail=true'), { rows: 10, next: true })
    })
  })

  describe('/events/properties', () => {
    it("answers OpenPanel's { columns, properties }, each key with its events", async () => {
      const res = await get(`events/properties?${DAY}`)
      assert.equal(res.status, 200)
      assert.ok(res.body.columns.includes('path') && res.body.columns.includes('country'), JSON.stringify(res.body.columns))
      assert.ok(!res.body.columns.includes('name'))
      // A row per key and event name, by key: OpenPanel's list.
      assert.deepEqual(res.body.properties, [
        { property_key: 'plan', event_name: 'purchase', count: 1 },
        { property_key: 'plan', event_name: 'signup', count: 1 },
        { property_key: 'price', event_name: 'purchase', count: 1 },
      ])
    })
    it("takes OpenPanel's eventName beside event", async () => {
      for (const name of ['eventName', 'event']) {
        const res = await get(`events/properties?${DAY}&${name}=signup`)
        assert.deepEqual(res.body.properties, [{ property_key: 'plan', event_name: 'signup', count: 1 }])
      }
      const detailed = await get(`events/properties?${DAY}&eventName=signup&detail=true`)
      assert.deepEqual(detailed.body, [{ key: 'properties.plan', count: 1 }])
    })
  })

  describe('/events/property_values', () => {
    it("answers OpenPanel's { event, property, values } with eventName and propertyKey, counts beside", async () => {
      const res = await get(`events/property_values?${DAY}&eventName=purchase&propertyKey=plan`)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.deepEqual(res.body, { event: 'purchase', property: 'plan', values: ['pro'], counts: [1] })
    })
    it("takes Quarry's key and event, or both names when equal", async () => {
      const quarry = await get(`events/property_values?${DAY}&key=plan`)
      assert.deepEqual(quarry.body, { event: null, property: 'plan', values: ['pro'], counts: [2] })
      const both = await get(`events/property_values?${DAY}&key=plan&propertyKey=plan&event=signup&eventName=signup&detail=true`)
      assert.deepEqual(both.body, [{ value: 'pro', count: 1 }])
    })
    it('refuses a missing key, and two names of one parameter that differ, listing each', async () => {
      assert.deepEqual(await issuesOf('events/property_values?eventName=screen_view'), ['key'])
      assert.deepEqual(await issuesOf('events/property_values?key=plan&propertyKey=price&event=a&eventName=b'), [
        'eventName',
        'propertyKey',
      ])
    })
  })

  describe('/pages/entry_exit', () => {
    it("answers entry pages without mode, OpenPanel's default", async () => {
      const bare = await get(`pages/entry_exit?${DAY}`)
      const entry = await get(`pages/entry_exit?${DAY}&mode=entry`)
      assert.equal(bare.status, 200, JSON.stringify(bare.body))
      assert.deepEqual(
        bare.body.map((row: { path: string; sessions: number }) => [row.path, row.sessions]),
        [
          ['/a', 2],
          ['/b', 1],
          ['/x', 1],
        ],
      )
      assert.deepEqual(bare.body, entry.body)
    })
  })

  describe('/sessions', () => {
    it("answers OpenPanel's array of sessions under OpenPanel's names, the keyset cursor in Link", async () => {
      const first = await get(`sessions?${DAY}&limit=3`)
      assert.equal(first.status, 200, JSON.stringify(first.body))
      assert.deepEqual(
        first.body.map((s: Record<string, unknown>) => [
          s.id,
          s.profile_id,
          s.created_at,
          s.duration,
          s.screen_view_count,
          s.event_count,
          s.is_bounce,
          s.exit_path,
        ]),
        [
          ['s4', 'carol', '2024-03-05T13:00:00.000+00:00', 360_000, 3, 3, false, '/b'],
          ['s3', 'alice', '2024-03-05T12:00:00.000+00:00', 60_000, 0, 2, true, null],
          ['s2', 'bob', '2024-03-05T11:00:00.000+00:00', 0, 1, 1, true, '/a'],
        ],
      )
      const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link)
      assert.ok(link, first.headers.link)
      const second = await request(h.app).get(link[1]).set(auth)
      assert.deepEqual(
        second.body.map((s: { id: string }) => s.id),
        ['s1'],
      )
      assert.equal(second.headers.link, undefined)
    })
    it("answers Quarry's { meta, data } with detail=true, its cursor in both", async () => {
      const res = await get(`sessions?${DAY}&limit=3&detail=true`)
      assert.deepEqual(
        res.body.data.map((s: { id: string }) => s.id),
        ['s4', 's3', 's2'],
      )
      assert.ok(res.body.meta.nextCursor)
      assert.ok(res.headers.link.includes(`cursor=${res.body.meta.nextCursor}`), res.headers.link)
    })
    it("pages 20 sessions by default, OpenPanel's default", async () => {
      const res = await get('sessions?range=30d')
      assert.equal(res.body.length, 7)
    })
  })

  describe('/retention', () => {
    const WEEKS = 'startDate=2024-02-26&endDate=2024-03-17'
    const week = (date: string, active: number, retained: number, retention: number) => ({
      date: `${date}T00:00:00.000+00:00`,
      active_users: active,
      retained_users: retained,
      retention,
    })
    it("answers OpenPanel's weekly series: each week's active visitors and those active the week after", async () => {
      const res = await get(`retention?${WEEKS}`)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.deepEqual(res.body, [week('2024-02-26', 1, 1, 100), week('2024-03-04', 3, 1, 33.33), week('2024-03-11', 1, 1, 100)])
    })
    it('counts only the events the filters keep, and a return after the window ends', async () => {
      const onA = encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'is', value: ['/a'] }]))
      const filtered = await get(`retention?${WEEKS}&filters=${onA}`)
      assert.deepEqual(filtered.body, [week('2024-02-26', 1, 1, 100), week('2024-03-04', 2, 1, 50), week('2024-03-11', 1, 1, 100)])
      const oneWeek = await get('retention?startDate=2024-02-26&endDate=2024-03-04')
      assert.deepEqual(oneWeek.body, [week('2024-02-26', 1, 1, 100)])
    })
    it("answers Quarry's cohort table with detail=true, and refuses its parameters without it", async () => {
      const query = { startDate: '2024-02-26', endDate: '2024-03-17', period: 'week', periods: '3' }
      const res = await get(`retention?${new URLSearchParams(query)}&detail=true`)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const model = answerBehaviour({ events: EVENTS, projectTimezone: 'UTC', resource: 'retention', query, now: NOW })
      assert.deepEqual(res.body, model.body)
      assert.deepEqual(await issuesOf(`retention?${new URLSearchParams(query)}`), ['period', 'periods'])
    })
  })

  describe('/retention/cohort', () => {
    const COHORTS = 'startDate=2024-02-26&endDate=2024-03-17&periods=3'
    it("answers OpenPanel's cohort rows: a weighted average over the periods each cohort has reached, then the cohorts with visitors", async () => {
      const res = await get(`retention/cohort?${COHORTS}`)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.deepEqual(res.body, [
        { cohort_interval: 'Weighted Average', sum: 2, values: [2, 1, 1, 0], percentages: [1, 0.67, 0.33, 0] },
        { cohort_interval: '2024-02-26T00:00:00.000+00:00', sum: 1, values: [1, 1, 0, 0], percentages: [1, 1, 0, 0] },
        { cohort_interval: '2024-03-04T00:00:00.000+00:00', sum: 2, values: [2, 1, 1, 0], percentages: [1, 0.5, 0.5, 0] },
      ])
    })
    it("takes OpenPanel's defaults (weeks, on_or_after, 12 periods, 3 months), and answers Quarry's table with detail=true", async () => {
      const res = await get('retention/cohort?detail=true')
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const query = { period: 'week', criteria: 'on_or_after', periods: '12', range: '3m' }
      const model = answerBehaviour({ events: EVENTS, projectTimezone: 'UTC', resource: 'retention', query, now: NOW })
      assert.deepEqual(res.body, model.body)
      assert.equal((res.body as { cohorts: { values: unknown[] }[] }).cohorts[0].values.length, 13)
    })
  })

  describe('/user_flow', () => {
    it("answers OpenPanel's sankey of the flows after startEvent, repeats in a row as one node", async () => {
      const signup = await get(`user_flow?${DAY}&startEvent=signup`)
      assert.equal(signup.status, 200, JSON.stringify(signup.body))
      assert.deepEqual(signup.body, {
        mode: 'after',
        startEvent: 'signup',
        sessions: 1,
        node_count: 2,
        link_count: 1,
        nodes: [
          { id: 'signup::step1', label: 'signup', step: 1, value: 1, percentage: 100, exits: 0 },
          { id: 'purchase::step2', label: 'purchase', step: 2, value: 1, percentage: 100, exits: 1 },
        ],
        links: [{ source: 'signup::step1', target: 'purchase::step2', value: 1 }],
      })
      const views = await get(`user_flow?${DAY}&startEvent=screen_view&mode=after`)
      assert.deepEqual(views.body.nodes, [{ id: 'screen_view::step1', label: 'screen_view', step: 1, value: 3, percentage: 100, exits: 3 }])
      assert.deepEqual(views.body.links, [])
    })
    it('refuses endEvent without between, between without endEvent, excluding the ends and a missing startEvent, listing each', async () => {
      assert.deepEqual(await issuesOf('user_flow?startEvent=signup&mode=before&endEvent=purchase&exclude=signup&exclude=b'), [
        'endEvent',
        'exclude',
      ])
      assert.deepEqual(await issuesOf('user_flow?startEvent=signup&mode=between&exclude=signup'), ['endEvent', 'exclude'])
      assert.deepEqual(await issuesOf('user_flow?startEvent=signup&mode=sideways&endEvent=purchase'), ['mode'])
      assert.deepEqual(await issuesOf('user_flow?steps=1'), ['startEvent', 'steps'])
    })
  })

  // Five sessions of a project of their own, each a run of events a minute apart on the 5th of March.
  describe('/user_flow before, between, include and exclude', () => {
    const FLOWS = { id: 'flows', timezone: 'UTC' }
    const RUNS: Record<string, string[]> = {
      f1: ['view', 'search', 'search', 'signup', 'cart', 'purchase'],
      f2: ['view', 'signup', 'view', 'purchase'],
      f3: ['search', 'purchase', 'signup', 'cart'],
      f4: ['signup'],
      f5: ['view', 'cart'],
    }
    before(async () => {
      await createProject(h.engine, FLOWS)
      const events = Object.entries(RUNS).flatMap(([session, names], hour) =>
        names.map((name, minute) => on5th(session, `p-${session}`, name, `1${hour}:0${minute}:00.000`, '/')),
      )
      await insertRawEvents(h.engine, events, FLOWS.id)
    })
    const flow = async (query: string) => {
      const res = await request(h.app).get(`/insights/${FLOWS.id}/user_flow?${DAY}&${query}`).set(auth)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body
    }
    const node = (label: string, step: number, value: number, percentage: number, exits: number) => ({
      id: `${label}::step${step}`,
      label,
      step,
      value,
      percentage,
      exits,
    })
    const link = (source: string, step: number, target: string, value: number) => ({
      source: `${source}::step${step}`,
      target: `${target}::step${step + 1}`,
      value,
    })

    it('before: the last `steps` events up to the first startEvent, repeats in a row as one', async () => {
      assert.deepEqual(await flow('startEvent=signup&mode=before&steps=3'), {
        mode: 'before',
        startEvent: 'signup',
        sessions: 4,
        node_count: 7,
        link_count: 5,
        nodes: [
          node('view', 1, 2, 50, 0),
          node('search', 1, 1, 25, 0),
          node('signup', 1, 1, 25, 1),
          node('purchase', 2, 1, 25, 0),
          node('search', 2, 1, 25, 0),
          node('signup', 2, 1, 25, 1),
          node('signup', 3, 2, 50, 2),
        ],
        links: [
          link('search', 1, 'purchase', 1),
          link('view', 1, 'search', 1),
          link('view', 1, 'signup', 1),
          link('purchase', 2, 'signup', 1),
          link('search', 2, 'signup', 1),
        ],
      })
    })
    it('between: from the first startEvent to the first endEvent after it; none when the end comes only before', async () => {
      assert.deepEqual(await flow('startEvent=signup&mode=between&endEvent=purchase'), {
        mode: 'between',
        startEvent: 'signup',
        endEvent: 'purchase',
        sessions: 2,
        node_count: 4,
        link_count: 4,
        nodes: [node('signup', 1, 2, 100, 0), node('cart', 2, 1, 50, 0), node('view', 2, 1, 50, 0), node('purchase', 3, 2, 100, 2)],
        links: [link('signup', 1, 'cart', 1), link('signup', 1, 'view', 1), link('cart', 2, 'purchase', 1), link('view', 2, 'purchase', 1)],
      })
      const skipping = await flow('startEvent=signup&mode=between&endEvent=purchase&exclude=view')
      assert.deepEqual(skipping.links, [link('signup', 1, 'cart', 1), link('signup', 1, 'purchase', 1), link('cart', 2, 'purchase', 1)])
    })
    it('include: only the named events, with startEvent, in the flow', async () => {
      const kept = await flow('startEvent=signup&include=purchase')
      assert.deepEqual(kept.nodes, [node('signup', 1, 4, 100, 2), node('purchase', 2, 2, 50, 2)])
      assert.deepEqual(kept.links, [link('signup', 1, 'purchase', 2)])
    })
  })

  describe('/batch', () => {
    it("gives a paged answer's next parameters as the result's next", async () => {
      const res = await request(h.app)
        .post(`/insights/${PROJECT.id}/batch`)
        .set(auth)
        .send({
          requests: [
            { id: 'names', route: 'events/names', params: { startDate: '2024-03-05', endDate: '2024-03-05', limit: 2 } },
            { id: 'sessions', route: 'sessions', params: { startDate: '2024-03-05', endDate: '2024-03-05', limit: 3 } },
            { id: 'all', route: 'events/names', params: { startDate: '2024-03-05', endDate: '2024-03-05' } },
          ],
        })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const [names, sessions, all] = res.body.results
      assert.deepEqual(names, { id: 'names', status: 200, body: ['screen_view', 'purchase'], next: { cursor: '2' } })
      const alone = await get(`sessions?${DAY}&limit=3`)
      assert.deepEqual(sessions.body, alone.body)
      assert.ok(alone.headers.link.includes(`cursor=${sessions.next.cursor}`))
      assert.deepEqual(all, { id: 'all', status: 200, body: ['screen_view', 'purchase', 'signup'] })
    })
  })
})
