// The behaviour questions' hand-worked answers on a tiny fixture (fixtures/golden/flow.ndjson, the cases
// and their derivations in expected-behaviour.json and WORKED-behaviour.md), checked against the gateway
// and against the reference model.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { funnel } from '../../queries/behaviour/funnel'
import type { Scope } from '../../queries/core/pipeline'
import { answerBehaviour } from '../reference/behaviour'
import { request } from '../support/openapi-request'
import { FIXTURES, goldenEvents, startWithEvents, type Harness } from '../support/harness'

interface BehaviourCase {
  name: string
  now: string
  path: string
  status: number
  body?: unknown
  /** For a 400: at least this many issues, one per problem of the request. */
  issues?: number
}

const cases = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'golden', 'expected-behaviour.json'), 'utf8')) as BehaviourCase[]
const PROJECT = { id: 'flow', timezone: 'UTC' }

/** The URL query as the gateway's parser gives it: a repeated parameter is a list. */
function queryOf(urlPath: string): { resource: string; query: Record<string, string | string[]> } {
  const url = new URL(urlPath, 'http://golden')
  const query: Record<string, string | string[]> = {}
  for (const [key, value] of url.searchParams) {
    const previous = query[key]
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return { resource: url.pathname.split('/').pop() as string, query }
}

/** A golden case's path as the gateway is asked it: a retention case asks Quarry's cohort table (`detail=true`), its golden answer. */
const gatewayPath = (urlPath: string) => (queryOf(urlPath).resource === 'retention' ? `${urlPath}&detail=true` : urlPath)

describe('behaviour questions on the golden flow fixture', () => {
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, goldenEvents('flow')))
  })
  after(() => h.close())

  describe('the gateway answers as worked out by hand', () => {
    for (const golden of cases) {
      it(golden.name, async () => {
        h.now = new Date(golden.now)
        const res = await request(h.app).get(gatewayPath(golden.path)).set(auth)
        assert.equal(res.status, golden.status, JSON.stringify(res.body))
        if (golden.status === 200) assert.deepEqual(res.body, golden.body)
        else assert.ok(res.body.details.issues.length >= (golden.issues ?? 1), JSON.stringify(res.body.details.issues))
      })
    }
  })

  it('answers retention anew once a period starts, though the result cache holds the earlier answer', async () => {
    const url = '/insights/flow/retention?startDate=2024-04-01&endDate=2024-04-10&periods=2'
    const lastValueOfSecondCohort = (body: { cohorts: { values: (number | null)[] }[] }) => body.cohorts[1].values[2]
    h.now = new Date('2024-04-20T12:00:00.000Z')
    const before = await request(h.app).get(gatewayPath(url)).set(auth).expect(200)
    assert.equal(lastValueOfSecondCohort(before.body), null, 'the week of 22 April has not started')
    h.now = new Date('2024-04-23T12:00:00.000Z')
    const after = await request(h.app).get(gatewayPath(url)).set(auth).expect(200)
    assert.equal(lastValueOfSecondCohort(after.body), 0, 'the week of 22 April has started')
    const model = answerBehaviour({
      events: goldenEvents('flow'),
      projectTimezone: PROJECT.timezone,
      resource: 'retention',
      query: queryOf(url).query,
      now: h.now,
    })
    assert.deepEqual(after.body, model.body)
  })

  it('averages retention as null for a period no cohort has reached, not as 0%', async () => {
    const url = '/insights/flow/retention?startDate=2024-04-01&endDate=2024-04-10&periods=2'
    h.now = new Date('2024-04-12T12:00:00.000Z')
    const res = await request(h.app).get(gatewayPath(url)).set(auth).set('Cache-Control', 'no-cache').expect(200)
    assert.deepEqual(
      res.body.cohorts.map((cohort: { values: (number | null)[] }) => cohort.values[2]),
      [null, null],
      'neither cohort has reached its third week on 12 April',
    )
    assert.equal(res.body.average.percentages[2], null)
    assert.equal(typeof res.body.average.percentages[1], 'number', 'the first cohort has reached its second week')
    const model = answerBehaviour({
      events: goldenEvents('flow'),
      projectTimezone: PROJECT.timezone,
      resource: 'retention',
      query: queryOf(url).query,
      now: h.now,
    })
    assert.deepEqual(res.body, model.body)
  })

  it('answers every golden funnel without a breakdown on `entries`, with the rows `window` gives', async () => {
    const funnels = cases.filter(
      (golden) => golden.status === 200 && queryOf(golden.path).resource === 'funnel' && !golden.path.includes('breakdown='),
    )
    const answered: number[][] = []
    for (const golden of funnels) {
      const scope: Scope = { project: { ...PROJECT, name: PROJECT.id }, now: new Date(golden.now), sessionLookbackMs: 0 }
      const planned = funnel.plan(funnel.parse(queryOf(golden.path).query, scope))
      if (planned.engine === 'fold') continue
      assert.equal(planned.engine, 'entries', golden.name)
      const { rows } = await h.runner.run<{ value: string; reached: number[]; total: number[] }>(funnel.compile(planned))
      const windowRows = (await h.runner.run(funnel.compile({ ...planned, engine: 'window' }))).rows
      assert.deepEqual(rows, windowRows, golden.name)
      answered.push(rows.length ? rows[0].reached.map(Number) : [])
    }
    // No entry at all (no row, as `window` gives), entries and no later step (zeros after the first), and conversions.
    assert.deepEqual(answered, [[5, 4, 2], [5, 4, 3], [], [2, 0]])
  })

  describe('the reference model answers as worked out by hand', () => {
    for (const golden of cases) {
      it(golden.name, () => {
        const { resource, query } = queryOf(golden.path)
        const answer = answerBehaviour({
          events: goldenEvents('flow'),
          projectTimezone: PROJECT.timezone,
          resource,
          query,
          now: new Date(golden.now),
        })
        assert.equal(answer.status, golden.status)
        if (golden.status === 200) assert.deepEqual(answer.body, golden.body)
      })
    }
  })
})
