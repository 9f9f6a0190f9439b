// What a starting gateway tells its operator on stdout: the demo's progress, where it listens (which
// interfaces, and the URLs that reach it), and the demo's credentials. Readable lines when the logs are
// pretty; one JSON object per line when they are JSON, so output a container merges stays JSON. Written
// whatever LOG_LEVEL says: a new demo secret is shown only here.
import os from 'node:os'
import type { LogFormat } from '../logger'

/** The demo a start made or found (server/admin/demo.ts's Demo; the HTTP code imports nothing of the admin code). */
interface Demo {
  credentials: { projectId: string; clientId: string; clientSecret: string }
  /** Whether this start created it: only then is the secret shown. */
  created: boolean
  file: string
}

type Interfaces = ReturnType<typeof os.networkInterfaces>

const urlOf = (address: string, port: number) => `http://${address.includes(':') ? `[${address}]` : address}:${port}`

/** Which interfaces `host` covers, and the URLs that reach the gateway (this machine's first). */
export function listeningOn(
  host: string,
  port: number,
  interfaces: Interfaces = os.networkInterfaces(),
): { scope: string; urls: string[] } {
  const addresses = Object.values(interfaces).flatMap((list) => list ?? [])
  const external = (ipv6: boolean) =>
    addresses.filter((a) => !a.internal && (ipv6 || a.family === 'IPv4')).map((a) => urlOf(a.address, port))
  if (host === '0.0.0.0') return { scope: `every IPv4 interface (HOST=${host})`, urls: [urlOf('127.0.0.1', port), ...external(false)] }
  if (host === '::') return { scope: `every interface (HOST=${host})`, urls: [urlOf('::1', port), ...external(true)] }
  if (host === 'localhost' || host === '::1' || host.startsWith('127.'))
    return { scope: `this machine only (HOST=${host})`, urls: [urlOf(host, port)] }
  return { scope: `${host} only (HOST=${host})`, urls: [urlOf(host, port)] }
}

export interface Banner {
  /** A line of the start sequence (the demo's seeding). */
  note(line: string): void
  listening(options: { host: string; port: number; demo: Demo | undefined }): void
}

/** The pretty lines of a listening gateway. */
function listeningLines(scope: string, urls: string[], demo: Demo | undefined): string[] {
  const lines = [`Quarry listening on ${scope}: ${urls.join(', ')}`]
  if (!scope.startsWith('this machine')) lines.push('  (HOST=127.0.0.1 keeps it to this machine)')
  if (demo?.created) {
    const { projectId, clientId, clientSecret } = demo.credentials
    lines.push(
      `Demo project:  ${projectId}`,
      `Client id:     ${clientId}`,
      `Client secret: ${clientSecret}  (shown once; also saved to ${demo.file})`,
      'Try:',
      `  curl -s -H 'openpanel-client-id: ${clientId}' -H 'openpanel-client-secret: ${clientSecret}' ${urls[0]}/insights/${projectId}/live`,
    )
  } else if (demo) {
    lines.push(`Demo project ${demo.credentials.projectId}, client id ${demo.credentials.clientId}: the secret is in ${demo.file}`)
  }
  return lines
}

/** The JSON entry of a listening gateway: the same facts as fields. */
function listeningEntry(scope: string, urls: string[], demo: Demo | undefined): Record<string, unknown> {
  const entry: Record<string, unknown> = { message: `Quarry listening on ${scope}`, urls }
  if (demo?.created) {
    const { projectId, clientId, clientSecret } = demo.credentials
    Object.assign(entry, {
      demo: { projectId, clientId, clientSecret, file: demo.file, note: 'the secret is shown once' },
      try: `curl -s -H 'openpanel-client-id: ${clientId}' -H 'openpanel-client-secret: ${clientSecret}' ${urls[0]}/insights/${projectId}/live`,
    })
  } else if (demo) {
    entry.demo = `project ${demo.credentials.projectId}, client id ${demo.credentials.clientId}: the secret is in ${demo.file}`
  }
  return entry
}

export function createBanner(options: {
  format?: LogFormat
  json?: boolean
  write?: (line: string) => void
  interfaces?: () => Interfaces
}): Banner {
  // The logger's own rule (server/logger.ts): unset means pretty on a terminal, JSON otherwise.
  const json = options.json ?? (options.format ?? (process.stderr.isTTY ? 'pretty' : 'json')) === 'json'
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`))
  const entry = (fields: Record<string, unknown>) =>
    write(JSON.stringify({ level: 'info', ...fields, timestamp: new Date().toISOString() }))
  return {
    note: (line) => (json ? entry({ message: line }) : write(line)),
    listening({ host, port, demo }) {
      const { scope, urls } = listeningOn(host, port, options.interfaces?.())
      if (json) entry(listeningEntry(scope, urls, demo))
      else write(listeningLines(scope, urls, demo).join('\n'))
    },
  }
}
