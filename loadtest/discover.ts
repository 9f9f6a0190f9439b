// What the scenarios need to know about the target before the load starts, asked of the gateway itself:
// the project (the read client's own, or the one named) and the days that hold its events.

/** A project and its first and last days with events, as `YYYY-MM-DD` in the project's time zone. */
export interface Target {
  projectId: string
  firstDay: string
  lastDay: string
}

export class DiscoveryError extends Error {}

async function getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(url, { headers: { ...headers, 'cache-control': 'no-cache' } })
  const text = await res.text()
  if (res.status !== 200) throw new DiscoveryError(`${new URL(url).pathname} answered ${res.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as Record<string, unknown>
}

const dayOf = (isoWithOffset: string) => isoWithOffset.slice(0, 10)

/** The first bucket of a one-series chart (every event) with a count above 0. */
async function firstBucket(base: string, headers: Record<string, string>, query: string): Promise<string | undefined> {
  const series = encodeURIComponent(JSON.stringify([{ name: '*' }]))
  const chart = (await getJson(`${base}/export/charts?${query}&series=${series}`, headers)) as {
    series: { data: { date: string; count: number }[] }[]
  }
  return chart.series[0]?.data.find((bucket) => bucket.count > 0)?.date
}

/**
 * Asks the gateway for the newest event (its project, when none is named: a read client's own), then a
 * monthly chart since 2000 for the first month with events and a daily chart of that month for its day.
 * Dates in answers carry the project's offset, so their first 10 characters are the project's days.
 */
export async function discoverTarget(base: string, headers: Record<string, string>, projectId?: string): Promise<Target> {
  const project = projectId ? `projectId=${encodeURIComponent(projectId)}&` : ''
  const newest = (await getJson(`${base}/export/events?${project}limit=1`, headers)) as { data: { projectId: string; createdAt: string }[] }
  const event = newest.data[0]
  if (!event) throw new DiscoveryError(`project ${projectId ?? 'of this client'} has no events: there is nothing to load-test`)
  const target = `projectId=${encodeURIComponent(event.projectId)}`
  const month = await firstBucket(base, headers, `${target}&interval=month&startDate=2000-01-01`)
  if (!month) throw new DiscoveryError(`project ${event.projectId} has no events since 2000-01-01`)
  const monthEnd = new Date(`${dayOf(month).slice(0, 7)}-01T00:00:00Z`)
  monthEnd.setUTCMonth(monthEnd.getUTCMonth() + 1)
  monthEnd.setUTCDate(0)
  const day = await firstBucket(
    base,
    headers,
    `${target}&interval=day&startDate=${dayOf(month)}&endDate=${monthEnd.toISOString().slice(0, 10)}`,
  )
  return { projectId: event.projectId, firstDay: dayOf(day ?? month), lastDay: dayOf(event.createdAt) }
}
