// `npm run bench -- people`: each people route's statements against the SQL OpenPanel runs for the same
// question, on the same data in one embedded engine, interleaved rounds (medians and the least
// `max_memory_usage` each completes under). OpenPanel's statements follow Openpanel-dev/openpanel at ed7bdddb,
// cited per statement; its profiles table is built as its code-migration 16 builds it, and its sessions as
// bench/openpanel.ts builds them. Bounded: its own temporary data directory, QUARRY_BENCH_PEOPLE_EVENTS events
// (default 1,000,000) seeded as the demo is, with a second version of every profile and group.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ClickHouseClient } from '@clickhouse/client'
import type { Params } from '../queries/core/compiled'
import type { Scope } from '../queries/core/pipeline'
import { statementsOf } from '../queries/run/statements'
import { createProject } from '../server/admin/control'
import { migrate } from '../server/admin/migrate'
import { seedProject } from '../server/admin/seed'
import { loadConfig } from '../server/config'
import { openEngine } from '../server/engine'
import { ROUTES } from '../server/routes/routes'
import { BASELINE_TABLE, buildBaseline } from './openpanel'
import { percentile } from './percentile'
import { waitForMerges } from './setup'

const PROJECT = 'people'
const EVENTS = Number(process.env.QUARRY_BENCH_PEOPLE_EVENTS ?? 1_000_000)
const ROUNDS = 15
const OP_PROFILES = 'bench_op_profiles'

interface Statement {
  sql: string
  params: Params
}

/** OpenPanel's profiles table as code-migrations/16-restructure-profiles.ts:75-98 creates it, filled with the same rows. */
async function buildProfilesBaseline(client: ClickHouseClient): Promise<void> {
  await client.command({
    query: `CREATE TABLE ${OP_PROFILES} (
      id String CODEC(ZSTD(3)), is_external Bool, first_name String CODEC(ZSTD(3)), last_name String CODEC(ZSTD(3)),
      email String CODEC(ZSTD(3)), avatar String CODEC(ZSTD(3)), properties Map(String, String) CODEC(ZSTD(3)),
      project_id String CODEC(ZSTD(3)), groups Array(String) DEFAULT [] CODEC(ZSTD(3)),
      created_at DateTime64(3) CODEC(Delta(4), LZ4), last_seen_at DateTime64(3) CODEC(Delta(4), LZ4),
      INDEX idx_first_name first_name TYPE bloom_filter GRANULARITY 1,
      INDEX idx_last_name last_name TYPE bloom_filter GRANULARITY 1,
      INDEX idx_email email TYPE bloom_filter GRANULARITY 1
    ) ENGINE = ReplacingMergeTree(last_seen_at) PARTITION BY toYYYYMM(created_at) ORDER BY (project_id, id)
    SETTINGS index_granularity = 8192`,
  })
  await client.command({
    query: `INSERT INTO ${OP_PROFILES} (id, is_external, first_name, last_name, email, avatar, properties, project_id, groups, created_at, last_seen_at)
      SELECT id, is_external, first_name, last_name, email, avatar, properties, project_id, groups, created_at, last_seen_at FROM profiles`,
  })
}

const PROFILE_COLUMNS = 'id, first_name, last_name, email, avatar, properties, project_id, is_external, created_at, last_seen_at, groups'

/** OpenPanel's statements per route, with the file and lines each follows (packages/db/src/services/). */
function openPanelStatements(profileId: string, groupId: string): Record<string, Statement[]> {
  const params = { projectId: PROJECT, profileId, groupId }
  const one = (sql: string): Statement => ({ sql, params })
  return {
    // profile.service.ts:392-473, findProfilesCore with ?browser=Firefox
    profiles: [
      one(`SELECT ${PROFILE_COLUMNS} FROM ${OP_PROFILES} FINAL
        WHERE project_id = {projectId:String} AND properties['browser'] = 'Firefox' ORDER BY created_at DESC LIMIT 20`),
    ],
    // profile.service.ts:475-501, getProfileWithEvents: the profile FINAL, and its newest 20 events
    profile: [
      one(`SELECT ${PROFILE_COLUMNS} FROM ${OP_PROFILES} FINAL WHERE project_id = {projectId:String} AND id = {profileId:String} LIMIT 1`),
      one(
        `SELECT * FROM events WHERE project_id = {projectId:String} AND profile_id = {profileId:String} ORDER BY created_at DESC LIMIT 20`,
      ),
    ],
    // profile.service.ts:503-517, getProfileSessionsCore
    'profile sessions': [
      one(`SELECT * FROM ${BASELINE_TABLE} WHERE project_id = {projectId:String} AND profile_id = {profileId:String} AND sign = 1
        ORDER BY created_at DESC LIMIT 20`),
    ],
    // profile.service.ts:50-96, buildProfileMetricsSql
    'profile metrics': [
      one(`WITH profileSeen AS (
          SELECT created_at as firstSeen, last_seen_at as lastSeen FROM ${OP_PROFILES} FINAL
          WHERE id = {profileId:String} AND project_id = {projectId:String} LIMIT 1),
        eventStats AS (
          SELECT countIf(name = 'screen_view') as screenViews, countIf(name = 'session_start') as sessions,
            round(avgIf(duration, name = 'session_end' AND duration != 0) / 1000 / 60, 2) as durationAvg,
            round(quantilesExactInclusiveIf(0.9)(duration, name = 'session_end' AND duration != 0)[1] / 1000 / 60, 2) as durationP90,
            count(*) as totalEvents, count(DISTINCT toDate(created_at)) as uniqueDaysActive,
            round(avgIf(properties['__bounce'] = '1', name = 'session_end') * 100, 4) as bounceRate,
            countIf(name NOT IN ('screen_view', 'session_start', 'session_end')) as conversionEvents,
            sumIf(revenue, name = 'revenue') as revenue
          FROM events WHERE profile_id = {profileId:String} AND project_id = {projectId:String})
        SELECT (SELECT lastSeen FROM profileSeen) as lastSeen, (SELECT firstSeen FROM profileSeen) as firstSeen,
          screenViews, sessions, durationAvg, durationP90, totalEvents, uniqueDaysActive, bounceRate,
          round(totalEvents / nullIf(sessions, 0), 2) as avgEventsPerSession, conversionEvents,
          CASE WHEN sessions <= 1 THEN 0 ELSE round(dateDiff('second', (SELECT firstSeen FROM profileSeen),
            (SELECT lastSeen FROM profileSeen)) / nullIf(sessions - 1, 0), 1) END as avgTimeBetweenSessions, revenue
        FROM eventStats`),
    ],
    // group.service.ts:178-186, getGroupTypes
    'group types': [one('SELECT DISTINCT type FROM groups FINAL WHERE project_id = {projectId:String} AND deleted = 0')],
    // group.service.ts:107-141, getGroupList
    groups: [
      one(`SELECT project_id, id, type, name, properties, created_at, version FROM groups FINAL
        WHERE project_id = {projectId:String} AND deleted = 0 ORDER BY created_at DESC LIMIT 20 OFFSET 0`),
    ],
    // group.service.ts:93-105, 295-340 and profile.service.ts:152-169: the group, its member ids, their profiles
    group: [
      one(`SELECT project_id, id, type, name, properties, created_at, version FROM groups FINAL
        WHERE project_id = {projectId:String} AND id = {groupId:String} AND deleted = 0`),
      one(`SELECT id, count() OVER () AS total_count FROM ${OP_PROFILES} FINAL
        WHERE project_id = {projectId:String} AND has(groups, {groupId:String}) ORDER BY created_at DESC LIMIT 10 OFFSET 0`),
      one(`SELECT ${PROFILE_COLUMNS} FROM ${OP_PROFILES} FINAL WHERE project_id = {projectId:String}
        AND id IN (SELECT id FROM ${OP_PROFILES} FINAL WHERE project_id = {projectId:String} AND has(groups, {groupId:String})
        ORDER BY created_at DESC LIMIT 10)`),
    ],
  }
}

/** The gateway's statements of a route for one request, as the run stage compiles them. */
function quarryStatements(route: string, query: Record<string, string>, scope: Scope): Statement[] {
  const found = ROUTES.find((candidate) => candidate.path === `/insights/:projectId/${route}`) ?? assert(route)
  return statementsOf(found.resource, query, scope, true).map(({ compiled }) => ({ sql: compiled.sql, params: { ...compiled.params } }))
}
const assert = (route: string): never => {
  throw new Error(`no route ${route}`)
}

async function run(client: ClickHouseClient, statement: Statement, settings: Record<string, number> = {}): Promise<void> {
  const result = await client.query({
    query: statement.sql,
    query_params: statement.params,
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  })
  await result.text()
}

/** Milliseconds of running every statement of a set, one after the other (as a request runs them). */
async function timeSet(client: ClickHouseClient, set: Statement[]): Promise<number> {
  const started = performance.now()
  for (const statement of set) await run(client, statement)
  return performance.now() - started
}

/** The least max_memory_usage (MiB, by halving on a log scale) under which every statement of a set completes. */
async function memoryFloorMb(client: ClickHouseClient, set: Statement[]): Promise<number> {
  let [low, high] = [0.25, 4096]
  for (let step = 0; step < 10; step++) {
    const middle = Math.sqrt(low * high)
    try {
      for (const statement of set) await run(client, statement, { max_memory_usage: Math.round(middle * 1024 * 1024) })
      high = middle
    } catch (error) {
      if (!/memory limit|MEMORY_LIMIT_EXCEEDED/i.test((error as Error).message)) throw error
      low = middle
    }
  }
  return high
}

export async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-people-'))
  const engine = await openEngine(loadConfig({ QUARRY_DATA_DIR: dir }).engine)
  try {
    await migrate(engine)
    const end = new Date('2026-01-01T00:00:00Z')
    await createProject(engine, { id: PROJECT, timezone: 'UTC' })
    const seeded = await seedProject(engine, { projectId: PROJECT, events: EVENTS, days: 30, seed: 42, end })
    const client = engine.client
    // A second version of every profile and group, as visits and renames write them.
    await client.command({
      query: `INSERT INTO profiles SELECT * REPLACE (last_seen_at + INTERVAL 1 HOUR AS last_seen_at, concat(first_name, '!') AS first_name) FROM profiles`,
    })
    await client.command({ query: `INSERT INTO groups SELECT * REPLACE (version + 1 AS version, concat(name, ' 2') AS name) FROM groups` })
    await buildBaseline(client, PROJECT)
    await buildProfilesBaseline(client)
    await waitForMerges(client)
    const [{ profiles, groups, profileId, groupId }] = (await (
      await client.query({
        query: `SELECT (SELECT uniqExact(id) FROM profiles) AS profiles, (SELECT uniqExact(id) FROM groups) AS groups,
          (SELECT profile_id FROM events WHERE profile_id LIKE 'user_%' GROUP BY profile_id ORDER BY count() DESC, profile_id LIMIT 1) AS profileId,
          (SELECT arrayJoin(groups) AS g FROM profiles GROUP BY g ORDER BY count() DESC, g LIMIT 1) AS groupId`,
        format: 'JSONEachRow',
      })
    ).json()) as { profiles: string; groups: string; profileId: string; groupId: string }[]
    console.log(
      `\nPeople routes against OpenPanel's statements: ${EVENTS} events seeded in ${seeded.seconds.toFixed(1)} s, ${profiles} profiles and ` +
        `${groups} groups of two versions each, the most active profile ${profileId} and largest group ${groupId}; ` +
        `${ROUNDS} rounds, each running the two in a new order, medians:`,
    )
    const scope: Scope = { project: { id: PROJECT, name: PROJECT, timezone: 'UTC' }, now: end, sessionLookbackMs: 86_400_000 }
    const questions: [string, string, Record<string, string>][] = [
      ['profiles', 'profiles', { browser: 'Firefox' }],
      ['profile', `profiles/:profileId`, { profileId }],
      ['profile sessions', 'profiles/:profileId/sessions', { profileId }],
      ['profile metrics', 'profiles/:profileId/metrics', { profileId }],
      ['group types', 'groups/types', {}],
      ['groups', 'groups', {}],
      ['group', 'groups/:groupId', { groupId }],
    ]
    const theirs = openPanelStatements(profileId, groupId)
    console.log('| route | Quarry p50 ms | OpenPanel p50 ms | ratio | Quarry memory floor MiB | OpenPanel memory floor MiB |')
    console.log('|---|---|---|---|---|---|')
    for (const [name, route, query] of questions) {
      const ours = quarryStatements(route, query, scope)
      const baseline = theirs[name]
      const [oursMs, theirsMs]: number[][] = [[], []]
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0]
        for (const which of order) (which === 0 ? oursMs : theirsMs).push(await timeSet(client, which === 0 ? ours : baseline))
      }
      const [a, b] = [percentile(oursMs, 50), percentile(theirsMs, 50)]
      const [memoryOurs, memoryTheirs] = [await memoryFloorMb(client, ours), await memoryFloorMb(client, baseline)]
      console.log(
        `| /${route} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(2)}× | ${memoryOurs.toFixed(1)} | ${memoryTheirs.toFixed(1)} |`,
      )
    }
  } finally {
    await engine.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
