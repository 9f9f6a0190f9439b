// OpenPanel's router fixture in Quarry's tables: three people (Alice, Bob who never came, Charlie), nine events
// and three sessions, dated back from `now` as OpenPanel's fixture dates them. OpenPanel inserts its third
// session (Charlie's bounce ten days ago) straight into its sessions table; Quarry derives sessions from events,
// so that session is one page view here: nine events where OpenPanel has eight.
import { toClickHouseTime } from '../../queries/core/pipeline'
import { createProject } from '../../server/admin/control'
import type { Engine } from '../../server/engine'
import { insertRawEvents } from './harness'

export const OPENPANEL_PROJECT = { id: 'openpanel-router', name: 'OpenPanel router fixture', timezone: 'UTC' }

export const PEOPLE = { alice: 'profile-alice', bob: 'profile-bob', charlie: 'profile-charlie' } as const
export const SESSIONS = { alice1: 'sess-alice-1', charlie1: 'sess-charlie-1', charlie2: 'sess-charlie-2' } as const

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000

/** `days` days and `minutes` minutes before `now`. */
const ago = (now: Date, days: number, minutes = 0) => new Date(now.getTime() - days * DAY_MS - minutes * MINUTE_MS)

interface FixtureEvent {
  id: string
  name: string
  profile: string
  session: string
  days: number
  minutes: number
  path?: string
  browser?: string
  revenue?: number
  duration?: number
}

const EVENTS: FixtureEvent[] = [
  { id: '01', name: 'session_start', profile: PEOPLE.alice, session: SESSIONS.alice1, days: 2, minutes: 4 },
  { id: '02', name: 'page_view', profile: PEOPLE.alice, session: SESSIONS.alice1, days: 2, minutes: 2, path: '/home' },
  { id: '03', name: 'session_end', profile: PEOPLE.alice, session: SESSIONS.alice1, days: 2, minutes: 0, duration: 120_000 },
  { id: '04', name: 'session_start', profile: PEOPLE.charlie, session: SESSIONS.charlie1, days: 5, minutes: 20, browser: 'Firefox' },
  {
    id: '05',
    name: 'screen_view',
    profile: PEOPLE.charlie,
    session: SESSIONS.charlie1,
    days: 5,
    minutes: 15,
    path: '/shop',
    browser: 'Firefox',
  },
  {
    id: '06',
    name: 'page_view',
    profile: PEOPLE.charlie,
    session: SESSIONS.charlie1,
    days: 5,
    minutes: 10,
    path: '/shop',
    browser: 'Firefox',
  },
  {
    id: '07',
    name: 'purchase',
    profile: PEOPLE.charlie,
    session: SESSIONS.charlie1,
    days: 5,
    minutes: 5,
    path: '/checkout',
    browser: 'Firefox',
    revenue: 9900,
  },
  {
    id: '08',
    name: 'session_end',
    profile: PEOPLE.charlie,
    session: SESSIONS.charlie1,
    days: 5,
    minutes: 0,
    browser: 'Firefox',
    duration: 300_000,
  },
  {
    id: '09',
    name: 'screen_view',
    profile: PEOPLE.charlie,
    session: SESSIONS.charlie2,
    days: 10,
    minutes: 0,
    path: '/shop',
    browser: 'Firefox',
  },
]

/** The fixture's events in the import format. */
export function openPanelEvents(now: Date): object[] {
  return EVENTS.map((event) => ({
    id: `00000000-0000-4000-8000-0000000000${event.id}`,
    project_id: OPENPANEL_PROJECT.id,
    name: event.name,
    device_id: `dev-${event.profile.replace('profile-', '')}`,
    profile_id: event.profile,
    session_id: event.session,
    created_at: ago(now, event.days, event.minutes).toISOString(),
    path: event.path ?? '/',
    origin: 'https://example.com',
    country: 'US',
    device: 'desktop',
    browser: event.browser ?? 'Chrome',
    duration: event.duration ?? 0,
    revenue: event.revenue ?? 0,
    sdk_name: 'web',
    sdk_version: '1.0.0',
  }))
}

/** The fixture's people as rows of the profiles table. */
export function openPanelProfiles(now: Date): object[] {
  const person = (id: string, first: string, last: string, browser: string, country: string, created: number, seen: number) => ({
    id,
    project_id: OPENPANEL_PROJECT.id,
    first_name: first,
    last_name: last,
    email: `${first.toLowerCase()}@example.com`,
    avatar: '',
    properties: { browser, country, device: 'desktop' },
    created_at: toClickHouseTime(ago(now, created)),
    last_seen_at: toClickHouseTime(ago(now, seen)),
  })
  return [
    person(PEOPLE.alice, 'Alice', 'Smith', 'Chrome', 'US', 60, 1),
    person(PEOPLE.bob, 'Bob', "O'Brien", 'Chrome', 'SE', 90, 90),
    person(PEOPLE.charlie, 'Charlie', 'Brown', 'Firefox', 'US', 30, 5),
  ]
}

/** Creates the fixture's project and loads its events and people. */
export async function loadOpenPanelFixture(engine: Engine, now: Date): Promise<void> {
  await createProject(engine, OPENPANEL_PROJECT)
  await insertRawEvents(engine, openPanelEvents(now), OPENPANEL_PROJECT.id)
  await engine.client.insert({ table: 'profiles', values: openPanelProfiles(now), format: 'JSONEachRow' })
}
