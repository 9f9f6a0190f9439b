// A typed Quarry client with openapi-fetch: paths, parameters and answers come from the generated
// examples/quarry-api.ts, so a renamed field or parameter is a compile error here, not a surprise later.
// Run: QUARRY_URL=http://127.0.0.1:3000 QUARRY_CLIENT_ID=... QUARRY_CLIENT_SECRET=... npx tsx examples/metrics-client.ts <projectId>
import createClient from 'openapi-fetch'
import type { paths } from './quarry-api'

export interface ClientOptions {
  baseUrl: string
  clientId: string
  clientSecret: string
}

export function createQuarryClient(options: ClientOptions) {
  const credentials = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')
  return createClient<paths>({ baseUrl: options.baseUrl, headers: { Authorization: `Basic ${credentials}` } })
}

/** The last 30 days of a project, by day: totals and one entry per day. */
export async function fetchDailyMetrics(client: ReturnType<typeof createQuarryClient>, projectId: string) {
  const { data, error, response } = await client.GET('/insights/{projectId}/metrics', {
    params: { path: { projectId }, query: { range: '30d', interval: 'day' } },
  })
  if (!data) throw new Error(`${response.status} ${error ? `${error.message} (request ${error.requestId})` : response.statusText}`)
  return data
}

if (require.main === module) {
  const client = createQuarryClient({
    baseUrl: process.env.QUARRY_URL ?? 'http://127.0.0.1:3000',
    clientId: process.env.QUARRY_CLIENT_ID ?? '',
    clientSecret: process.env.QUARRY_CLIENT_SECRET ?? '',
  })
  fetchDailyMetrics(client, process.argv[2] ?? 'demo').then(({ metrics, series }) => {
    console.log(`${metrics.total_sessions} sessions, bounce rate ${metrics.bounce_rate}%, ${metrics.unique_visitors} visitors`)
    for (const day of series) console.log(`${day.date}  ${day.total_sessions} sessions  ${day.total_screen_views} views`)
  })
}
