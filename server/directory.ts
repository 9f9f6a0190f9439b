// Looks up API clients and projects for the request path, with a short cache so scrypt runs once per
// client and secret per cache period, and a revoked client is refused once its entry expires.
import crypto from 'node:crypto'
import { compileTemplate } from '../queries/compiled'
import type { Project } from '../queries/pipeline'
import type { Runner } from '../queries/run'
import { verifySecret } from './secrets'

export type ClientType = 'read' | 'write' | 'root'

export interface ApiClient {
  id: string
  name: string
  type: ClientType
  projectId: string
}

interface ClientRow {
  id: string
  name: string
  type: ClientType
  project_id: string
  secret_hash: string
  revoked: number
}

interface Cached<T> {
  value: T
  expires: number
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export class Directory {
  private readonly clients = new Map<string, Cached<ApiClient | null>>()
  private readonly projects = new Map<string, Cached<Project | null>>()

  constructor(
    private readonly runner: Runner,
    private readonly cacheMs: number,
  ) {}

  /** The client for these credentials, or null when they are wrong, unknown or revoked. */
  async authenticate(id: string, secret: string): Promise<ApiClient | null> {
    if (!UUID_PATTERN.test(id) || !secret) return null
    const key = `${id.toLowerCase()}:${crypto.createHash('sha256').update(secret).digest('base64url')}`
    const hit = this.clients.get(key)
    if (hit && hit.expires > Date.now()) return hit.value
    const { rows } = await this.runner.run<ClientRow>(compileTemplate('control/api-client.sql', { id }))
    const row = rows[0]
    const valid = row !== undefined && row.revoked === 0 && (await verifySecret(secret, row.secret_hash))
    const value = valid ? { id: row.id, name: row.name, type: row.type, projectId: row.project_id } : null
    this.remember(this.clients, key, value)
    return value
  }

  async project(id: string): Promise<Project | null> {
    const hit = this.projects.get(id)
    if (hit && hit.expires > Date.now()) return hit.value
    const { rows } = await this.runner.run<Project>(compileTemplate('control/project.sql', { id }))
    const value = rows[0] ?? null
    this.remember(this.projects, id, value)
    return value
  }

  private remember<T>(cache: Map<string, Cached<T>>, key: string, value: T): void {
    if (this.cacheMs <= 0) return
    if (cache.size > 10_000) cache.clear()
    cache.set(key, { value, expires: Date.now() + this.cacheMs })
  }
}
