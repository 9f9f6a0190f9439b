// The golden fixture's hand-worked answers (fixtures/golden/expected.json, derivations in WORKED.md),
// checked against the gateway and against the reference model.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { request } from '../support/openapi-request'
import { answerChart } from '../reference/charts'
import { exportRows, type RawProfile } from '../reference/export'
import { answerInsights } from '../reference/model'
import { FIXTURES, goldenEvents, goldenProjects, loadGolden, startHarness, type Harness } from '../support/harness'

interface GoldenCase {
  name: string
  project: string
  now: string
  path: string
  status: number
  body: unknown
  next?: boolean
}

const readCases = (file: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'golden', file), 'utf8')) as GoldenCase[]
const cases = readCases('expected.json')
const exportCases = readCases('expected-export.json')
const chartCases = readCases('expected-charts.json')

/** `nextCursor` is opaque: the hand-worked answers say only whether there is one. */
function withOpaqueCursor(body: unknown): unknown {
  const meta = (body as { meta?: { nextCursor?: string | null } }).meta
  if (!meta) return body
  return { ...(body as object), meta: { ...meta, nextCursor: meta.nextCursor ? '<non-null>' : null } }
}

function queryOf(urlPath: string): { resource: string; query: Record<string, string> } {
  const url = new URL(urlPath, 'http://golden')
  return { resource: url.pathname.split('/').pop() as string, query: Object.fromEntries(url.searchParams) }
}

/** Repeated parameters (`includes=a&includes=b`) as lists, the way the export model takes them. */
function multiQueryOf(urlPath: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const [key, value] of new URL(urlPath, 'http://golden').searchParams) {
    const previous = query[key]
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return query
}

const profiles = fs
  .readFileSync(path.join(FIXTURES, 'golden', 'profiles.ndjson'), 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as RawProfile)

describe('golden fixture', () => {
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    const root = await loadGolden(h.engine)
    auth = { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  })
  after(() => h.close())

  describe('the gateway answers as worked out by hand', () => {
    for (const golden of [...cases, ...exportCases, ...chartCases]) {
      it(golden.name, async () => {
        h.now = new Date(golden.now)
        const res = await request(h.app).get(golden.path).set(auth)
        assert.equal(res.status, golden.status, JSON.stringify(res.body))
        if (golden.status !== 200) {
          assert.ok(res.body.details.issues.length >= 1)
          return
        }
        assert.deepEqual(withOpaqueCursor(res.body), golden.body)
        if (golden.next !== undefined) assert.equal(Boolean(res.headers.link), golden.next, `Link: ${res.headers.link}`)
      })
    }
  })

  describe('the reference model answers as worked out by hand', () => {
    const timezones = new Map(goldenProjects().map((project) => [project.id, project.timezone]))
    for (const golden of cases) {
      it(golden.name, () => {
        const { resource, query } = queryOf(golden.path)
        const answer = answerInsights({
          events: goldenEvents(golden.project),
          projectTimezone: timezones.get(golden.project) as string,
          resource,
          query,
          now: new Date(golden.now),
        })
        assert.equal(answer.status, golden.status)
        if (golden.status === 200) assert.deepEqual(answer.body, golden.body)
        if (golden.next !== undefined) assert.equal(answer.next, golden.next)
      })
    }
    for (const golden of chartCases) {
      it(golden.name, () => {
        const { query } = queryOf(golden.path)
        const answer = answerChart({
          events: goldenEvents(golden.project),
          projectTimezone: timezones.get(golden.project) as string,
          query,
          now: new Date(golden.now),
        })
        assert.equal(answer.status, golden.status)
        if (golden.status === 200) assert.deepEqual(answer.body, golden.body)
      })
    }
    for (const golden of exportCases.filter((c) => c.status === 200)) {
      it(golden.name, () => {
        const query = multiQueryOf(golden.path)
        const projectId = String(query.projectId ?? query.project_id)
        const answer = exportRows({
          events: goldenEvents(projectId),
          profiles,
          projectId,
          projectTimezone: timezones.get(projectId) as string,
          query,
          now: new Date(golden.now),
        })
        assert.equal(answer.status, 200)
        const body = golden.body as { meta: { totalCount: number; current: number; count: number }; data: unknown[] }
        const limit = Number(query.limit ?? 50)
        assert.equal(answer.rows.length, body.meta.totalCount)
        assert.deepEqual(answer.rows.slice((body.meta.current - 1) * limit, (body.meta.current - 1) * limit + body.meta.count), body.data)
      })
    }
  })
})
