// The Docker deployment, read as files (no Docker engine runs here): compose refuses to start without
// passwords, neither ClickHouse user can manage access, the serving profile's limits are pinned by
// constraints that admit the gateway's defaults, and the image runs a supported Node LTS that engines admits.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { XMLParser } from 'fast-xml-parser'
import { parse as parseYaml } from 'yaml'
import { loadConfig } from '../../server/config'

const ROOT = path.join(__dirname, '..', '..')
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8')

type Env = Record<string, string | undefined>

/**
 * Compose's interpolation of one value: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`
 * and `${VAR?message}` (the forms the Compose Specification defines); throws the message as compose does.
 */
function interpolate(text: string, env: Env): string {
  return text.replace(/\$\{(\w+)(?:(:?)([-?])([^}]*))?\}/g, (_, name: string, colon: string, kind: string | undefined, word: string) => {
    const value = env[name]
    const missing = value === undefined || (colon === ':' && value === '')
    if (!missing || kind === undefined) return value ?? ''
    if (kind === '-') return word
    throw new Error(`${name}: ${word}`)
  })
}

/** Every string of the compose file, rendered with `env`. */
function renderCompose(env: Env): unknown {
  const render = (node: unknown): unknown => {
    if (typeof node === 'string') return interpolate(node, env)
    if (Array.isArray(node)) return node.map(render)
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, render(value)]))
    return node
  }
  // Compose resolves YAML merge keys (`<<: *anchor`), which YAML 1.2 leaves to the parser's option.
  return render(parseYaml(read('docker-compose.yml'), { merge: true }))
}

interface Service {
  environment: Record<string, string>
}

/** When each Node LTS line reaches its end of life (nodejs.org/en/about/previous-releases). */
const NODE_LTS_END_OF_LIFE: Record<number, string> = { 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' }

describe('the Docker deployment', () => {
  const passwords = { QUARRY_ADMIN_PASSWORD: 'admin-secret', QUARRY_READER_PASSWORD: 'reader-secret' }

  it('refuses to start without either password, saying which one is missing', () => {
    for (const missing of Object.keys(passwords)) {
      for (const value of [undefined, '']) {
        assert.throws(() => renderCompose({ ...passwords, [missing]: value }), new RegExp(`^Error: ${missing}: set ${missing} `))
      }
    }
    assert.doesNotMatch(read('docker-compose.yml'), /change-me/)
  })

  it('gives the gateway the reader to serve and the admin to migrate, neither with access management', () => {
    const { services } = renderCompose(passwords) as { services: Record<string, Service> }
    const { clickhouse, gateway } = services
    assert.equal(clickhouse.environment.CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT, '0')
    assert.equal(clickhouse.environment.CLICKHOUSE_PASSWORD, 'admin-secret')
    assert.equal(clickhouse.environment.QUARRY_READER_PASSWORD, 'reader-secret')
    assert.deepEqual(
      [gateway.environment.CLICKHOUSE_USER, gateway.environment.CLICKHOUSE_PASSWORD, gateway.environment.CLICKHOUSE_ADMIN_USER, gateway.environment.CLICKHOUSE_ADMIN_PASSWORD],
      ['quarry_reader', 'reader-secret', clickhouse.environment.CLICKHOUSE_USER, 'admin-secret'],
    )
  })

  it('migrates once, before the gateway starts, with the same settings', () => {
    const { services } = renderCompose(passwords) as { services: Record<string, Service & { command?: string[]; depends_on?: Record<string, { condition: string }> }> }
    const { migrate, gateway } = services
    assert.deepEqual(migrate.command, ['node', 'server/admin/cli.js', 'migrate'])
    assert.equal(gateway.depends_on?.migrate?.condition, 'service_completed_successfully')
    for (const setting of ['CLICKHOUSE_URL', 'CLICKHOUSE_DATABASE', 'CLICKHOUSE_ADMIN_USER', 'CLICKHOUSE_ADMIN_PASSWORD']) {
      assert.equal(migrate.environment[setting], gateway.environment[setting], setting)
    }
  })

  it("pins the reader's readonly, time and memory limits with constraints that admit the gateway's defaults", () => {
    const xml = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(read('docker/clickhouse/users.d/quarry-reader.xml'))
    const reader = xml.clickhouse.users.quarry_reader
    assert.equal(reader.access_management, '0')
    assert.deepEqual(reader.grants, { query: 'GRANT SELECT ON quarry.*' })
    const profile = xml.clickhouse.profiles[reader.profile]
    assert.equal(profile.readonly, '2')
    assert.ok('const' in profile.constraints.readonly, 'readonly cannot be changed')
    const defaults = loadConfig({})
    for (const [setting, gatewayDefault] of [['max_execution_time', defaults.maxExecutionSeconds], ['max_memory_usage', defaults.maxMemoryBytes]] as const) {
      const { min, max } = profile.constraints[setting] as { min?: string; max?: string }
      assert.ok(Number(min) >= 1, `${setting}: 0 (no limit) is refused`)
      assert.equal(Number(max), Number(profile[setting]), `${setting}: the profile's value is its ceiling`)
      assert.equal(Number(max), gatewayDefault, `${setting}: the gateway's default is accepted`)
    }
  })

  it('builds and runs the image on one supported Node LTS that package.json engines admits', () => {
    const majors = [...read('Dockerfile').matchAll(/^FROM node:(\d+)[-.\w]* AS \w+$/gm)].map(([, major]) => Number(major))
    assert.equal(majors.length, 2, 'a build and a runtime stage')
    assert.equal(new Set(majors).size, 1, 'both stages on the same Node')
    const endOfLife = NODE_LTS_END_OF_LIFE[majors[0]]
    assert.ok(endOfLife && new Date(`${endOfLife}T00:00:00Z`) > new Date(), `Node ${majors[0]} is not a supported LTS`)
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node
    const minimum = Number(/^>=(\d+)$/.exec(engines)?.[1])
    assert.ok(majors[0] >= minimum, `Node ${majors[0]} is outside engines ${engines}`)
  })
})
