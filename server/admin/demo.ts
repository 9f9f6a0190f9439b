// First-start bootstrap for the embedded engine: a `demo` project with about 200k events over the
// last 30 days, a read client, and its credentials saved to <data dir>/demo-credentials.json.
import fs from 'node:fs'
import path from 'node:path'
import type { Engine } from '../engine'
import { createApiClient, createProject, listProjects } from './control'
import { seedProject } from './seed'

export interface DemoCredentials {
  projectId: string
  clientId: string
  clientSecret: string
}

export const DEMO_PROJECT = 'demo'

export function credentialsFile(dataDir: string): string {
  return path.join(dataDir, 'demo-credentials.json')
}

export interface Demo {
  credentials: DemoCredentials
  /** Whether this start created it: only then is the secret printed. */
  created: boolean
  file: string
}

/** Creates the demo on an empty database; returns the saved demo, if any. */
export async function ensureDemo(engine: Engine, events: number, log: (line: string) => void): Promise<Demo | undefined> {
  const file = credentialsFile(engine.settings.dataDir)
  if ((await listProjects(engine)).length === 0 && events > 0) {
    log(`Empty database: creating project "${DEMO_PROJECT}" and seeding ${events} events over the last 30 days...`)
    await createProject(engine, { id: DEMO_PROJECT, name: 'Demo', timezone: 'UTC' })
    const { seconds } = await seedProject(engine, { projectId: DEMO_PROJECT, events, days: 30, seed: 42, end: new Date() })
    log(`Seeded in ${seconds.toFixed(1)} s.`)
    const client = await createApiClient(engine, { type: 'read', projectId: DEMO_PROJECT, name: 'demo reader' })
    const credentials = { projectId: DEMO_PROJECT, clientId: client.id, clientSecret: client.secret }
    fs.writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 })
    return { credentials, created: true, file }
  }
  return fs.existsSync(file)
    ? { credentials: JSON.parse(fs.readFileSync(file, 'utf8')) as DemoCredentials, created: false, file }
    : undefined
}
