// The start banner: where the gateway listens, said plainly on a terminal, and as JSON lines when the
// logs are JSON, so output that a container merges stays one JSON object per line.
import assert from 'node:assert/strict'
import { createBanner, listeningOn } from '../../server/http/banner'

const demo = {
  credentials: { projectId: 'demo', clientId: 'id-1', clientSecret: 'sec_1' },
  created: true,
  file: '/data/demo-credentials.json',
}
const interfaces = {
  eth0: [
    { address: '10.1.2.3', family: 'IPv4', internal: false },
    { address: 'fe80::1', family: 'IPv6', internal: false },
  ],
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
}

function capture(json: boolean) {
  const lines: string[] = []
  return { banner: createBanner({ json, write: (line) => lines.push(line), interfaces: () => interfaces as never }), lines }
}

describe('start banner', () => {
  it('says a wildcard HOST listens on every interface, with the addresses to reach it by', () => {
    assert.deepEqual(listeningOn('0.0.0.0', 3000, interfaces as never), {
      scope: 'every IPv4 interface (HOST=0.0.0.0)',
      urls: ['http://127.0.0.1:3000', 'http://10.1.2.3:3000'],
    })
    assert.deepEqual(listeningOn('127.0.0.1', 3000, interfaces as never), {
      scope: 'this machine only (HOST=127.0.0.1)',
      urls: ['http://127.0.0.1:3000'],
    })
    assert.deepEqual(listeningOn('::', 8080, interfaces as never).urls, [
      'http://[::1]:8080',
      'http://10.1.2.3:8080',
      'http://[fe80::1]:8080',
    ])
    assert.deepEqual(listeningOn('10.1.2.3', 3000, interfaces as never), {
      scope: '10.1.2.3 only (HOST=10.1.2.3)',
      urls: ['http://10.1.2.3:3000'],
    })
  })

  it('prints readable lines on a terminal: the interfaces, the demo credentials once, a curl', () => {
    const { banner, lines } = capture(false)
    banner.note('Seeded in 1.0 s.')
    banner.listening({ host: '0.0.0.0', port: 3000, demo })
    const text = lines.join('\n')
    assert.match(
      text,
      /^Seeded in 1\.0 s\.\nQuarry listening on every IPv4 interface \(HOST=0\.0\.0\.0\): http:\/\/127\.0\.0\.1:3000, http:\/\/10\.1\.2\.3:3000/,
    )
    assert.match(text, /HOST=127\.0\.0\.1 keeps it to this machine/)
    assert.match(text, /Client secret: sec_1 {2}\(shown once; also saved to \/data\/demo-credentials\.json\)/)
    assert.match(
      text,
      /curl -s -H 'openpanel-client-id: id-1' -H 'openpanel-client-secret: sec_1' http:\/\/127\.0\.0\.1:3000\/insights\/demo\/live/,
    )
  })

  it('writes one JSON object per line when the logs are JSON', () => {
    const { banner, lines } = capture(true)
    banner.note('Seeded in 1.0 s.')
    banner.listening({ host: '0.0.0.0', port: 3000, demo: { ...demo, created: false } })
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    assert.equal(entries.length, 2)
    assert.deepEqual([entries[0].level, entries[0].message], ['info', 'Seeded in 1.0 s.'])
    assert.equal(entries[1].message, 'Quarry listening on every IPv4 interface (HOST=0.0.0.0)')
    assert.deepEqual(entries[1].urls, ['http://127.0.0.1:3000', 'http://10.1.2.3:3000'])
    assert.equal(entries[1].demo, 'project demo, client id id-1: the secret is in /data/demo-credentials.json')
    assert.ok(!lines.join('').includes('sec_1'), 'a reused demo never shows its secret')
  })
})
