// Hand-worked examples for the export-events reference model (test/reference/export.ts).
// Each expected row is derived by hand in a comment from docs/definitions.md, "Export events".

import assert from 'node:assert/strict'
import { exportRows, type RawProfile } from '../reference/export'
import type { RawEvent } from '../reference/model'

const P = 'p1'
const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

// Project p1, project timezone Europe/Berlin (UTC+01:00 in March until the 31st).
const E1: RawEvent = {
  id: uuid(1),
  project_id: P,
  name: 'screen_view',
  device_id: 'd1',
  profile_id: 'u1',
  session_id: 's1',
  created_at: '2024-03-10T10:00:00.000Z',
  path: '/home',
  origin: 'https://a.com',
  country: 'DE',
  region: 'BE',
  city: 'Berlin',
  latitude: 52.5,
  longitude: 13.25,
  os: 'iOS',
  os_version: '17.1',
  browser: 'Safari',
  browser_version: '17.0',
  device: 'mobile',
  brand: 'Apple',
  model: 'iPhone',
  referrer: 'https://google.com/',
  referrer_name: 'Google',
  referrer_type: 'search',
  utm_source: 'g',
  utm_medium: 'cpc',
  utm_campaign: 'spring',
  utm_term: 'shoes',
  utm_content: 'ad1',
  sdk_name: 'web',
  sdk_version: '1.2.0',
  imported_at: '2024-03-11T01:30:00.5+01:00',
  properties: { plan: 'pro', price: '12' },
}
// Same created_at as E1; upper-case id: its lowercase text "b0..." is what orders it.
const E2: RawEvent = {
  id: 'B0000000-0000-4000-8000-000000000002',
  project_id: P,
  name: 'click',
  device_id: 'd2',
  session_id: 's2',
  created_at: '2024-03-10T10:00:00.000Z',
  properties: { price: 'x' },
}
const E3: RawEvent = {
  id: 'a0000000-0000-4000-8000-000000000003',
  name: 'click', // no project_id: the request's project
  device_id: 'd3',
  session_id: 's3',
  created_at: '2024-03-10T10:00:00.000Z',
}
// 22:59:59.999Z = 23:59:59.999+01:00, the last millisecond of 10 March in Berlin.
const E4: RawEvent = {
  id: uuid(4),
  project_id: P,
  name: 'purchase',
  device_id: 'd1',
  profile_id: 'u1',
  session_id: 's1',
  created_at: '2024-03-10T22:59:59.999Z',
  duration: 1500,
  country: 'FR',
  properties: { price: '9.5' },
}
// 23:00Z = 11 March 00:00+01:00.
const E5: RawEvent = {
  id: uuid(5),
  project_id: P,
  name: 'screen_view',
  device_id: 'd5',
  profile_id: 'u2',
  session_id: 's5',
  created_at: '2024-03-10T23:00:00.000Z',
}
// 9 March 23:59:59.999+01:00.
const E6: RawEvent = {
  id: uuid(6),
  project_id: P,
  name: 'screen_view',
  device_id: 'd6',
  session_id: 's6',
  created_at: '2024-03-09T22:59:59.999Z',
}
// Another project: never exported for p1.
const E7: RawEvent = {
  id: uuid(7),
  project_id: 'p2',
  name: 'screen_view',
  device_id: 'd1',
  profile_id: 'u1',
  session_id: 's7',
  created_at: '2024-03-10T12:00:00.000Z',
}
const EVENTS = [E1, E2, E3, E4, E5, E6, E7]

const PROFILES: RawProfile[] = [
  {
    id: 'u1',
    project_id: P,
    first_name: 'Ann',
    email: 'ann@old.example',
    properties: { tier: 'free' },
    created_at: '2024-01-01T00:00:00.000Z',
    last_seen_at: '2024-02-01T00:00:00.000Z',
  },
  {
    id: 'u1',
    project_id: P,
    first_name: 'Ann',
    last_name: 'Lee',
    email: 'ann@new.example',
    properties: { tier: 'gold' },
    created_at: '2024-01-05T00:00:00.000Z',
    last_seen_at: '2024-03-01T12:00:00.250+01:00',
  },
  // Same id in another project, seen later: ignored.
  {
    id: 'u1',
    project_id: 'p2',
    email: 'other@example',
    created_at: '2023-01-01T00:00:00.000Z',
    last_seen_at: '2024-12-01T00:00:00.000Z',
  },
]

function run(
  query: Record<string, string | string[]>,
  projectTimezone = 'Europe/Berlin',
): { status: number; rows: Record<string, unknown>[] } {
  return exportRows({ events: EVENTS, profiles: PROFILES, projectId: P, projectTimezone, query, now: new Date('2024-03-20T12:00:00.000Z') })
}

function ids(query: Record<string, string | string[]>, projectTimezone?: string): string[] {
  const r = run(query, projectTimezone)
  assert.equal(r.status, 200)
  return r.rows.map((row) => row.id as string)
}

const ID1 = uuid(1)
const ID2 = 'b0000000-0000-4000-8000-000000000002'
const ID3 = 'a0000000-0000-4000-8000-000000000003'
const ID4 = uuid(4)
const ID5 = uuid(5)
const ID6 = uuid(6)

describe('reference model: export events', () => {
  it('orders by created_at desc, then the lowercase id text desc (bytewise)', () => {
    // E5 23:00Z > E4 22:59:59.999Z > {E1, E2, E3} at 10:00Z > E6 (9 March). E7 is another project.
    // The tie: lowercase texts "b0000000-..." > "a0000000-..." > "00000000-..." (0x62 > 0x61 > 0x30),
    // so E2, E3, E1 (raw "B..." would sort before "a..." bytewise, but ids compare lowercased).
    assert.deepEqual(ids({}), [ID5, ID4, ID2, ID3, ID1, ID6])
    // limit / cursor / page / format / projectId are the caller's business: same rows.
    assert.deepEqual(ids({ limit: '1', page: '2', format: 'csv', projectId: P, project_id: P }), [ID5, ID4, ID2, ID3, ID1, ID6])
  })

  it('shows the base fields with defaults, createdAt in the request zone', () => {
    const rows = run({}).rows
    // E4 in Berlin: 22:59:59.999Z + 1 h = 23:59:59.999+01:00. Missing city/os/browser/path -> "".
    assert.deepEqual(rows[1], {
      id: ID4,
      name: 'purchase',
      deviceId: 'd1',
      profileId: 'u1',
      sessionId: 's1',
      projectId: P,
      createdAt: '2024-03-10T23:59:59.999+01:00',
      path: '',
      duration: 1500,
      city: '',
      country: 'FR',
      os: '',
      browser: '',
    })
    // E3: no project_id (the request's), no profile_id (device_id d3), duration default 0.
    assert.deepEqual(rows[3], {
      id: ID3,
      name: 'click',
      deviceId: 'd3',
      profileId: 'd3',
      sessionId: 's3',
      projectId: P,
      createdAt: '2024-03-10T11:00:00.000+01:00',
      path: '',
      duration: 0,
      city: '',
      country: '',
      os: '',
      browser: '',
    })
    // timezone=America/New_York: 10 March 2024 is the US spring-forward day (07:00Z).
    // E4 22:59:59.999Z is EDT (−04:00) -> 18:59:59.999-04:00; E6 9 March 22:59:59.999Z is EST (−05:00)
    // -> 17:59:59.999-05:00.
    const ny = run({ timezone: 'America/New_York' }).rows
    assert.equal(ny[1].createdAt, '2024-03-10T18:59:59.999-04:00')
    assert.equal(ny[5].createdAt, '2024-03-09T17:59:59.999-05:00')
    // Project zone UTC: "+00:00", never "Z".
    assert.equal(run({}, 'UTC').rows[0].createdAt, '2024-03-10T23:00:00.000+00:00')
  })

  it('adds every include, with defaults where the row has no value', () => {
    // includes given comma-separated and repeated.
    const rows = run({ includes: ['geo,device', 'referrer', 'meta,properties', 'profile'] }).rows
    const e1 = rows.find((r) => r.id === ID1)
    // importedAt: 2024-03-11T01:30:00.5+01:00 = 00:30:00.500Z.
    // profile u1 (project p1 only): latest version = last_seen 2024-03-01T12:00:00.250+01:00 (11:00:00.250Z)
    // -> its names/email/properties; createdAt = earliest created_at of p1's versions (2024-01-01).
    assert.deepEqual(e1, {
      id: ID1,
      name: 'screen_view',
      deviceId: 'd1',
      profileId: 'u1',
      sessionId: 's1',
      projectId: P,
      createdAt: '2024-03-10T11:00:00.000+01:00',
      path: '/home',
      duration: 0,
      city: 'Berlin',
      country: 'DE',
      os: 'iOS',
      browser: 'Safari',
      region: 'BE',
      latitude: 52.5,
      longitude: 13.25,
      device: 'mobile',
      brand: 'Apple',
      model: 'iPhone',
      osVersion: '17.1',
      browserVersion: '17.0',
      referrer: 'https://google.com/',
      referrerName: 'Google',
      referrerType: 'search',
      utmSource: 'g',
      utmMedium: 'cpc',
      utmCampaign: 'spring',
      utmTerm: 'shoes',
      utmContent: 'ad1',
      sdkName: 'web',
      sdkVersion: '1.2.0',
      importedAt: '2024-03-11T00:30:00.500+00:00',
      properties: { plan: 'pro', price: '12' },
      profile: {
        id: 'u1',
        firstName: 'Ann',
        lastName: 'Lee',
        email: 'ann@new.example',
        avatar: '',
        properties: { tier: 'gold' },
        createdAt: '2024-01-01T00:00:00.000+00:00',
        lastSeenAt: '2024-03-01T11:00:00.250+00:00',
      },
    })
    // E2: everything defaulted; its profile id is its device id d2, which has no profile -> null.
    const e2 = rows.find((r) => r.id === ID2)
    assert.deepEqual(e2, {
      id: ID2,
      name: 'click',
      deviceId: 'd2',
      profileId: 'd2',
      sessionId: 's2',
      projectId: P,
      createdAt: '2024-03-10T11:00:00.000+01:00',
      path: '',
      duration: 0,
      city: '',
      country: '',
      os: '',
      browser: '',
      region: '',
      latitude: null,
      longitude: null,
      device: '',
      brand: '',
      model: '',
      osVersion: '',
      browserVersion: '',
      referrer: '',
      referrerName: '',
      referrerType: '',
      utmSource: '',
      utmMedium: '',
      utmCampaign: '',
      utmTerm: '',
      utmContent: '',
      sdkName: '',
      sdkVersion: '',
      importedAt: null,
      properties: { price: 'x' },
      profile: null,
    })
    // E5's profile u2 has no profile row -> null; only the requested include is added.
    const onlyProfile = run({ includes: 'profile' }).rows
    assert.equal(onlyProfile[0].profile, null)
    assert.deepEqual(Object.keys(onlyProfile[0]).length, 14)
    // The profile of E4 is the same latest version.
    assert.equal((onlyProfile[1].profile as { email: string }).email, 'ann@new.example')
  })

  it('reads date-only bounds in the zone, an end date including its whole day', () => {
    // Berlin: start=end=2024-03-10 -> [2024-03-09T23:00Z, 2024-03-10T23:00Z):
    // E4 (22:59:59.999Z) in; E5 (23:00Z) out (end exclusive); E6 (9 March 22:59:59.999Z) out.
    assert.deepEqual(ids({ start: '2024-03-10', end: '2024-03-10' }), [ID4, ID2, ID3, ID1])
    // timezone=UTC -> [2024-03-10T00:00Z, 2024-03-11T00:00Z): E5 now in, E6 still out.
    assert.deepEqual(ids({ start: '2024-03-10', end: '2024-03-10', timezone: 'UTC' }), [ID5, ID4, ID2, ID3, ID1])
    // The project's zone is used when no timezone is given.
    assert.deepEqual(ids({ start: '2024-03-10', end: '2024-03-10' }, 'UTC'), [ID5, ID4, ID2, ID3, ID1])
    // Instants: start inclusive, end exclusive, each bound optional.
    assert.deepEqual(ids({ start: '2024-03-10T22:59:59.999Z' }), [ID5, ID4])
    assert.deepEqual(ids({ end: '2024-03-10T11:00:00+01:00' }), [ID6])
    assert.deepEqual(ids({ end: '2024-03-10T11:00:00.001+01:00' }), [ID2, ID3, ID1, ID6])
  })

  it('applies filters to each event row on its own columns', () => {
    // country is a session attribute in insights; here it reads the event's own column: only E1 is DE
    // (E4, in E1's session, is FR and not kept).
    assert.deepEqual(ids({ filters: JSON.stringify([{ name: 'country', operator: 'is', value: ['DE'] }]) }), [ID1])
    // isNull: country "" -> E5, E2, E3, E6.
    assert.deepEqual(ids({ filters: JSON.stringify([{ name: 'country', operator: 'isNull' }]) }), [ID5, ID2, ID3, ID6])
    // price > 10: E1 (12) yes; E4 (9.5) no; E2 ("x", not a number) never; others "" never.
    assert.deepEqual(ids({ filters: JSON.stringify([{ name: 'properties.price', operator: 'gt', value: [10] }]) }), [ID1])
    // price <= 9.5 -> E4 only.
    assert.deepEqual(ids({ filters: JSON.stringify([{ name: 'properties.price', operator: 'lte', value: ['9.5'] }]) }), [ID4])
    // name contains "LICK" (case-insensitive) AND path isNull -> E2, E3.
    const f = [
      { name: 'name', operator: 'contains', value: ['LICK'] },
      { name: 'path', operator: 'isNull' },
    ]
    assert.deepEqual(ids({ filters: JSON.stringify(f) }), [ID2, ID3])
    // Filters AND with the window: Berlin 10 March, name isNot click -> E4, E1.
    assert.deepEqual(
      ids({ start: '2024-03-10', end: '2024-03-10', filters: JSON.stringify([{ name: 'name', operator: 'isNot', value: ['click'] }]) }),
      [ID4, ID1],
    )
  })

  it('keeps the listed event names and the profileId', () => {
    assert.deepEqual(ids({ event: 'click,purchase' }), [ID4, ID2, ID3])
    assert.deepEqual(ids({ event: ['screen_view', 'purchase'] }), [ID5, ID4, ID1, ID6])
    assert.deepEqual(ids({ event: 'nothing' }), [])
    // profile_id defaults to device_id: E2 has profile d2.
    assert.deepEqual(ids({ profileId: 'd2' }), [ID2])
    // u1: E4, E1 (E7 is another project's).
    assert.deepEqual(ids({ profileId: 'u1' }), [ID4, ID1])
    assert.deepEqual(ids({ profileId: 'u1', event: 'purchase' }), [ID4])
  })

  it('answers 400 for invalid parameters', () => {
    const bad: Array<Record<string, string | string[]>> = [
      { foo: '1' }, // unknown parameter
      { includes: 'geo,location' }, // unknown include
      { start: '2024-13-01' },
      { end: '2024-02-30' },
      { start: '2024-03-10T10:00:00' }, // no offset
      { start: '2024-03-10', end: '2024-03-09' }, // start >= end
      { start: '2024-03-10T10:00:00Z', end: '2024-03-10T10:00:00Z' },
      { start: ['2024-03-01', '2024-03-02'] }, // repeated single-valued parameter
      { timezone: 'Mars/Olympus' },
      { timezone: '+01:00' },
      { filters: '{' },
      { filters: JSON.stringify([{ name: 'entry_path', operator: 'is', value: ['/'] }]) },
      { filters: JSON.stringify([{ name: 'entry_origin', operator: 'isNull' }]) },
      { filters: JSON.stringify([{ name: 'country', operator: 'gt', value: [1] }]) }, // numeric op off properties
      { filters: JSON.stringify([{ name: 'nope', operator: 'is', value: ['x'] }]) },
    ]
    for (const query of bad) assert.equal(run(query).status, 400, JSON.stringify(query))
  })
})
