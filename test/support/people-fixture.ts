// A small people fixture worked by hand: three profiles (Alice with an older version, Bob without events,
// Charlie with three sessions, one of them split over two inserts), three groups (one renamed, one deleted),
// and their events. test/integration/people.test.ts checks every people route against it.
import type { Engine } from '../../server/engine'
import { insertRawEvents } from './harness'

export const PEOPLE_PROJECT = { id: 'people', timezone: 'UTC' }
export const PEOPLE_NOW = new Date('2024-03-10T00:00:00.000Z')

export const PROFILES = [
  // Alice's older version: another email, no groups; the newer one (larger last_seen_at) wins.
  {
    id: 'alice',
    first_name: 'Alice',
    last_name: 'Anders',
    email: 'alice@old.example',
    avatar: '',
    properties: { browser: 'Chrome', country: 'US' },
    created_at: '2024-03-01T10:00:00.000Z',
    last_seen_at: '2024-03-02T00:00:00.000Z',
    groups: [],
  },
  {
    id: 'alice',
    first_name: 'Alice',
    last_name: 'Anders',
    email: 'alice@example.com',
    avatar: 'https://example.com/alice.png',
    properties: { browser: 'Chrome', country: 'US', plan: 'pro' },
    created_at: '2024-03-01T10:00:00.000Z',
    last_seen_at: '2024-03-08T10:02:00.000Z',
    groups: ['acme'],
  },
  {
    id: 'bob',
    first_name: 'Bob',
    last_name: 'Brown',
    email: 'bob@example.com',
    avatar: '',
    properties: { browser: 'Safari', country: 'GB', plan: 'free' },
    created_at: '2024-03-02T09:00:00.000Z',
    last_seen_at: '2024-03-05T00:00:00.000Z',
    groups: ['acme', 'globex'],
  },
  {
    id: 'charlie',
    first_name: 'Charlie',
    last_name: 'Chen',
    email: 'charlie@example.com',
    avatar: '',
    properties: { browser: 'Firefox', country: 'DE' },
    created_at: '2024-03-03T08:00:00.000Z',
    last_seen_at: '2024-03-09T12:00:00.000Z',
    groups: [],
  },
]

export const GROUPS = [
  { id: 'acme', type: 'company', name: 'Acme Inc', properties: {}, created_at: '2024-03-01T00:00:00.000Z', version: 1, deleted: 0 },
  {
    id: 'acme',
    type: 'company',
    name: 'Acme Corp',
    properties: { size: '50' },
    created_at: '2024-03-01T00:00:00.000Z',
    version: 2,
    deleted: 0,
  },
  { id: 'globex', type: 'company', name: 'Globex', properties: {}, created_at: '2024-03-02T00:00:00.000Z', version: 1, deleted: 0 },
  { id: 'initech', type: 'team', name: 'Initech', properties: {}, created_at: '2024-03-03T00:00:00.000Z', version: 1, deleted: 0 },
  { id: 'initech', type: 'team', name: 'Initech', properties: {}, created_at: '2024-03-03T00:00:00.000Z', version: 2, deleted: 1 },
]

const event = (id: number, fields: Record<string, unknown>) => ({
  id: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  origin: 'https://shop.example',
  ...fields,
})

const alice = { profile_id: 'alice', device_id: 'dev-a', browser: 'Chrome', country: 'US' }
const charlie = { profile_id: 'charlie', device_id: 'dev-c', browser: 'Firefox', country: 'DE' }

/** Every event but the last of Charlie's third session, which a second insert brings (a second partial row). */
export const FIRST_EVENTS = [
  event(1, { ...alice, session_id: 'a1', name: 'screen_view', path: '/home', created_at: '2024-03-08T10:00:00.000Z' }),
  event(2, { ...alice, session_id: 'a1', name: 'screen_view', path: '/pricing', created_at: '2024-03-08T10:01:00.000Z' }),
  event(3, { ...alice, session_id: 'a1', name: 'purchase', path: '/pricing', revenue: 1500, created_at: '2024-03-08T10:02:00.000Z' }),
  event(4, { ...charlie, session_id: 'c1', name: 'screen_view', path: '/shop', created_at: '2024-03-04T08:00:00.000Z' }),
  event(5, { ...charlie, session_id: 'c2', name: 'screen_view', path: '/home', created_at: '2024-03-09T12:00:00.000Z' }),
  event(6, { ...charlie, session_id: 'c2', name: 'signup', path: '/home', created_at: '2024-03-09T12:00:30.000Z' }),
  event(7, { ...charlie, session_id: 'c3', name: 'screen_view', path: '/a', created_at: '2024-03-09T12:30:00.000Z' }),
]
export const LAST_EVENTS = [
  event(8, { ...charlie, session_id: 'c3', name: 'screen_view', path: '/b', created_at: '2024-03-09T12:31:30.000Z' }),
]

/** The fixture in the engine: profiles, groups, and the events in two inserts. */
export async function loadPeople(engine: Engine): Promise<void> {
  const project_id = PEOPLE_PROJECT.id
  await engine.client.insert({ table: 'profiles', values: PROFILES.map((row) => ({ ...row, project_id })), format: 'JSONEachRow' })
  await engine.client.insert({ table: 'groups', values: GROUPS.map((row) => ({ ...row, project_id })), format: 'JSONEachRow' })
  await insertRawEvents(engine, FIRST_EVENTS, project_id)
  await insertRawEvents(engine, LAST_EVENTS, project_id)
}
