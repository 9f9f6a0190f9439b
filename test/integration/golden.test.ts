// The golden fixture's hand-worked answers (fixtures/golden/expected.json, derivations in WORKED.md),
// checked against the gateway and against the reference model.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import request from 'supertest'
import { answerInsights, type RawEvent } from '../reference/model'
import { FIXTURES, goldenProjects, loadGolden, startHarness, type Harness } from '../support/harness'

interface GoldenCase {
  name: string
  project: string
  now: string
  path: string
  status: number
  body: unknown
  next?: boolean
}

const cases = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'golden', 'expected.json'), 'utf8')) as GoldenCase[]

export function readEvents(project: string): RawEvent[] {
  return fs
    .readFileSync(path.join(FIXTURES, 'golden', `${project}.ndjson`), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as RawEvent)
}

function queryOf(urlPath: string): { resource: string; query: Record<string, string> } {
  const url = new URL(urlPath, 'http://golden')
  return { resource: url.pathname.split('/').pop() as string, query: Object.fromEntries(url.searchParams) }
}

describe('golden fixture', function () {
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    const root = await loadGolden(h.engine)
    auth = { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  })
  after(() => h.close())

  describe('the gateway answers as worked out by hand', () => {
    for (const golden of cases) {
      it(golden.name, async () => {
        h.now = new Date(golden.now)
        const res = await request(h.app).get(golden.path).set(auth)
        assert.equal(res.status, golden.status, JSON.stringify(res.body))
        if (golden.status !== 200) {
          assert.ok(res.body.details.issues.length >= 1)
          return
        }
        assert.deepEqual(res.body, golden.body)
        if (golden.next !== undefined) assert.equal(Boolean(res.headers.link), golden.next, `Link: ${res.headers.link}`)
      })
    }
  })

  describe('the reference model answers as worked out by hand', () => {
    const timezones = new Map(goldenProjects().map((project) => [project.id, project.timezone]))
    for (const golden of cases) {
      it(golden.name, () => {
        const { resource, query } = queryOf(golden.path)
        const answer = answerInsights({ events: readEvents(golden.project), projectTimezone: timezones.get(golden.project) as string, resource, query, now: new Date(golden.now) })
        assert.equal(answer.status, golden.status)
        if (golden.status === 200) assert.deepEqual(answer.body, golden.body)
        if (golden.next !== undefined) assert.equal(answer.next, golden.next)
      })
    }
  })
})
