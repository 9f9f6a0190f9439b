// The Docker deployment, read as files (no Docker engine runs here): compose refuses to start without
// passwords, neither ClickHouse user can manage access, the serving profile's limits are pinned by
// constraints that admit the gateway's defaults, the image runs a supported Node LTS that engines admits,
// and every service is hardened (loopback publishing, the reader held to the backend network, read-only
// root, no capabilities, no privilege gain, limits, restart policies).
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
  user?: string
  ports?: string[]
  expose?: string[]
  read_only?: boolean
  tmpfs?: string[]
  cap_drop?: string[]
  security_opt?: string[]
  deploy?: { resources?: { limits?: { cpus?: string; memory?: string } } }
  restart?: string
  networks?: string[]
}

interface Compose {
  services: Record<string, Service>
  networks: Record<string, { internal?: boolean; ipam?: { config: { subnet: string }[] } }>
}

const readerXml = () =>
  new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(read('docker/clickhouse/users.d/quarry-reader.xml'))

/** Compose's size suffixes (b, k, m, g), in bytes. */
function bytesOf(size: string): number {
  const [, amount, unit] = /^(\d+(?:\.\d+)?)([bkmg]?)$/i.exec(size) ?? []
  assert.ok(amount, `not a size: ${size}`)
  return Number(amount) * 1024 ** 'bkmg'.indexOf((unit || 'b').toLowerCase())
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
      [
        gateway.environment.CLICKHOUSE_USER,
        gateway.environment.CLICKHOUSE_PASSWORD,
        gateway.environment.CLICKHOUSE_ADMIN_USER,
        gateway.environment.CLICKHOUSE_ADMIN_PASSWORD,
      ],
      ['quarry_reader', 'reader-secret', clickhouse.environment.CLICKHOUSE_USER, 'admin-secret'],
    )
  })

  it('migrates once, before the gateway starts, with the same settings', () => {
    const { services } = renderCompose(passwords) as {
      services: Record<string, Service & { command?: string[]; depends_on?: Record<string, { condition: string }> }>
    }
    const { migrate, gateway } = services
    assert.deepEqual(migrate.command, ['node', 'server/admin/cli.js', 'migrate'])
    assert.equal(gateway.depends_on?.migrate?.condition, 'service_completed_successfully')
    for (const setting of ['CLICKHOUSE_URL', 'CLICKHOUSE_DATABASE', 'CLICKHOUSE_ADMIN_USER', 'CLICKHOUSE_ADMIN_PASSWORD']) {
      assert.equal(migrate.environment[setting], gateway.environment[setting], setting)
    }
  })

  it("pins the reader's readonly, time and memory limits with constraints that admit the gateway's defaults", () => {
    const xml = readerXml()
    const reader = xml.clickhouse.users.quarry_reader
    assert.equal(reader.access_management, '0')
    assert.deepEqual(reader.grants, { query: 'GRANT SELECT ON quarry.*' })
    const profile = xml.clickhouse.profiles[reader.profile]
    assert.equal(profile.readonly, '2')
    assert.ok('const' in profile.constraints.readonly, 'readonly cannot be changed')
    const defaults = loadConfig({})
    for (const [setting, gatewayDefault] of [
      ['max_execution_time', defaults.maxExecutionSeconds],
      ['max_memory_usage', defaults.maxMemoryBytes],
    ] as const) {
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

  describe('hardening', () => {
    const compose = () => renderCompose(passwords) as Compose

    it('publishes the gateway on 127.0.0.1 unless QUARRY_PUBLISH_ADDRESS widens it, and nothing else', () => {
      assert.deepEqual(compose().services.gateway.ports, ['127.0.0.1:3000:3000'])
      const widened = renderCompose({ ...passwords, QUARRY_PUBLISH_ADDRESS: '0.0.0.0', QUARRY_PUBLISH_PORT: '8080' }) as Compose
      assert.deepEqual(widened.services.gateway.ports, ['0.0.0.0:8080:3000'])
      for (const [name, service] of Object.entries(compose().services))
        if (name !== 'gateway') assert.equal(service.ports, undefined, `${name} publishes no port`)
    })

    it('lets quarry_reader connect only from the backend network, the only one ClickHouse is on, which has no way out', () => {
      const reader = readerXml().clickhouse.users.quarry_reader
      assert.deepEqual(reader.networks, { ip: { '@_from_env': 'QUARRY_READER_NETWORK' } }, 'one <ip>, from the environment, no ::/0')
      for (const env of [passwords, { ...passwords, QUARRY_BACKEND_SUBNET: '10.99.0.0/24' }] as Env[]) {
        const { services, networks } = renderCompose(env) as Compose
        const subnet = networks.backend.ipam?.config.map((config) => config.subnet)
        assert.deepEqual(subnet, [services.clickhouse.environment.QUARRY_READER_NETWORK])
        assert.deepEqual(subnet, [env.QUARRY_BACKEND_SUBNET ?? '172.30.240.0/24'])
      }
      const { services, networks } = compose()
      assert.equal(networks.backend.internal, true)
      assert.deepEqual(services.clickhouse.networks, ['backend'])
      assert.deepEqual(services.migrate.networks, ['backend'])
      assert.ok(services.gateway.networks?.includes('backend'), 'the gateway reaches ClickHouse on backend')
    })

    it('runs every service read-only, without capabilities or privilege gain, with memory and CPU limits and a restart policy', () => {
      for (const [name, service] of Object.entries(compose().services)) {
        assert.equal(service.read_only, true, `${name}: read_only`)
        assert.deepEqual(service.cap_drop, ['ALL'], `${name}: cap_drop`)
        assert.ok(service.security_opt?.includes('no-new-privileges:true'), `${name}: no-new-privileges`)
        const limits = service.deploy?.resources?.limits
        assert.ok(Number(limits?.cpus) > 0, `${name}: a CPU limit`)
        assert.ok(bytesOf(limits?.memory ?? '') >= 64 * 1024 ** 2, `${name}: a memory limit`)
        assert.ok(
          ['no', 'always', 'on-failure', 'unless-stopped'].includes(service.restart?.split(':')[0] ?? ''),
          `${name}: a restart policy`,
        )
      }
      const { services } = compose()
      assert.equal(services.clickhouse.restart, 'unless-stopped')
      assert.equal(services.gateway.restart, 'unless-stopped')
      assert.equal(services.migrate.restart, 'no', 'a failed migration is not retried in a loop')
    })

    it("gives ClickHouse a tmpfs where its entrypoint writes, runs it as the image's clickhouse user, and leaves it room above a statement's memory cap", () => {
      const { clickhouse } = compose().services
      assert.equal(clickhouse.user, '101:101', 'no root: the entrypoint neither chowns nor switches users')
      const targets = (clickhouse.tmpfs ?? []).map((entry) => entry.split(':')[0])
      assert.ok(targets.includes('/etc/clickhouse-server/users.d'), 'the entrypoint writes users.d/default-user.xml')
      assert.ok(targets.includes('/tmp'))
      const perStatement = Number(readerXml().clickhouse.profiles.quarry_serving.max_memory_usage)
      assert.ok(bytesOf(clickhouse.deploy?.resources?.limits?.memory ?? '') > perStatement)
    })

    it('serves metrics to other containers on the backend network, never on a published port', () => {
      const { gateway } = compose().services
      assert.equal(gateway.environment.QUARRY_METRICS_HOST, '0.0.0.0')
      assert.deepEqual(gateway.expose, ['9464'])
      assert.equal(loadConfig({}).metrics.port, 9464)
      assert.ok(!gateway.ports?.some((port) => port.endsWith(':9464')))
      assert.match(read('docs/deploy.md'), /gateway:9464\/metrics/)
    })
  })
})
