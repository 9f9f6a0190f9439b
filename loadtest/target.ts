// Who the kit may load and as whom: loopback targets only unless the operator says the target is theirs,
// and credentials from the environment or the demo gateway's credentials file.
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

export const DEFAULT_URL = 'http://127.0.0.1:3000'

/** Whether `url` names this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost') return true
  if (net.isIPv4(host)) return host.startsWith('127.')
  return host === '::1'
}

export interface Credentials {
  clientId: string
  clientSecret: string
  /** The demo project, when the credentials came from the demo file. */
  projectId?: string
  /** Where they came from, for the report. */
  source: string
}

/**
 * QUARRY_CLIENT_ID / QUARRY_CLIENT_SECRET, then (only when no `--url` was given: the local demo gateway)
 * the demo credentials file `npm start` writes into its data directory. Never the command line, which
 * npm echoes.
 */
export function resolveCredentials(options: { urlGiven: boolean; env: NodeJS.ProcessEnv }): Credentials | undefined {
  const { QUARRY_CLIENT_ID: id, QUARRY_CLIENT_SECRET: secret } = options.env
  if (id && secret) return { clientId: id, clientSecret: secret, source: 'QUARRY_CLIENT_ID / QUARRY_CLIENT_SECRET' }
  if (options.urlGiven) return undefined
  const file = path.join(path.resolve(options.env.QUARRY_DATA_DIR || '.data'), 'demo-credentials.json')
  if (!fs.existsSync(file)) return undefined
  const demo = JSON.parse(fs.readFileSync(file, 'utf8')) as { projectId: string; clientId: string; clientSecret: string }
  return { clientId: demo.clientId, clientSecret: demo.clientSecret, projectId: demo.projectId, source: file }
}
