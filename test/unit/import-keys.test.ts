// An imported line may use the import format's snake_case keys or the camelCase the export writes, one
// style per line; both give the same row.
import assert from 'node:assert/strict'
import { parseEventLine } from '../../server/admin/importer'

const snake = {
  id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001',
  project_id: 'shop',
  name: 'purchase',
  device_id: 'dev-1',
  profile_id: 'user-1',
  session_id: 'sess-1',
  created_at: '2024-03-01T10:00:00.000Z',
  path: '/cart',
  origin: 'https://shop.example',
  referrer_name: 'Google',
  utm_source: 'news',
  os_version: '14',
  browser_version: '122.0',
  revenue: 1999,
  groups: ['team-a'],
  sdk_name: 'web',
  imported_at: null,
  properties: { plan: 'pro' },
}
// The same event as `export --includes ...` writes it (createdAt with the project's offset).
const camel = {
  id: snake.id,
  projectId: 'shop',
  name: 'purchase',
  deviceId: 'dev-1',
  profileId: 'user-1',
  sessionId: 'sess-1',
  createdAt: '2024-03-01T11:00:00.000+01:00',
  path: '/cart',
  origin: 'https://shop.example',
  referrerName: 'Google',
  utmSource: 'news',
  osVersion: '14',
  browserVersion: '122.0',
  revenue: 1999,
  groups: ['team-a'],
  sdkName: 'web',
  importedAt: null,
  properties: { plan: 'pro' },
}

describe('import key styles', () => {
  it('reads a camelCase line (as export writes it) into the row its snake_case twin gives', () => {
    const fromSnake = parseEventLine(JSON.stringify(snake), 'shop')
    const fromCamel = parseEventLine(JSON.stringify(camel), 'shop')
    assert.deepEqual(fromCamel.problems, [])
    assert.deepEqual(fromCamel.row, fromSnake.row)
    assert.equal(fromCamel.row?.created_at, '2024-03-01 10:00:00.000')
  })

  it('refuses a line that mixes the two styles, or carries the profile include, saying why', () => {
    const mixed = parseEventLine(JSON.stringify({ ...camel, deviceId: undefined, device_id: 'dev-1' }), 'shop')
    assert.deepEqual(mixed.problems, [
      'mixes snake_case keys (device_id) with camelCase ones (projectId, profileId, sessionId, createdAt, referrerName, utmSource, osVersion, browserVersion, sdkName, importedAt): use one style per line',
    ])
    const profiled = parseEventLine(JSON.stringify({ ...camel, profile: null }), 'shop')
    assert.match(profiled.problems.join(), /"profile" \(--includes profile\) is the visitor's profile, not an event field/)
  })

  it("imports another project's export into --project only when --from-project names it", () => {
    assert.match(
      parseEventLine(JSON.stringify(camel), 'copy').problems.join(),
      /project_id "shop" differs from --project "copy" \(.*--from-project shop\)/,
    )
    const moved = parseEventLine(JSON.stringify(camel), 'copy', 'shop')
    assert.deepEqual(moved.problems, [])
    assert.equal(moved.row?.project_id, 'copy')
    assert.match(
      parseEventLine(JSON.stringify(camel), 'copy', 'blog').problems.join(),
      /project_id "shop" differs from --from-project "blog"/,
    )
  })
})
