// `npm run bench -- discovery`: each discovery route through the gateway on the main dataset (10M events
// over 90 days), a 30-day and a 360-day window in the project's zone, their runs interleaved, with
// `Cache-Control: no-cache` so that every run reads the summaries. A 360-day window holds all 90 days of the
// data, so its time against the 30-day one's says how the cost grows with the window; and no window, which
// OpenPanel's shape reads as the whole history (since 1970-01-01). First, on a dataset seeded before the
// summaries existed, how long their migration's backfill took.
import { migrate } from '../server/admin/migrate'
import { loadConfig } from '../server/config'
import { openEngine } from '../server/engine'
import { get, interleaved } from './compare'
import { MAIN, PROJECT } from './setup'
import { withTimedGateway } from './timed-gateway'

/** The bench's last day is 2025-12-31 (its data ends at 2026-01-01T00:00Z). */
const WINDOWS = {
  '30-day': 'startDate=2025-12-02&endDate=2025-12-31',
  '360-day': 'startDate=2025-01-06&endDate=2025-12-31',
  // No window: OpenPanel's shape reads the whole history, every day since 1970-01-01.
  'whole-history': '',
}

const QUESTIONS = [
  { label: 'events/names', path: 'events/names?' },
  { label: 'events/properties', path: 'events/properties?' },
  { label: 'events/properties, event=add_to_cart', path: 'events/properties?event=add_to_cart&' },
  { label: 'events/property_values, key=product_id', path: 'events/property_values?key=product_id&' },
  { label: 'events/property_values, key=order_id (a value per purchase)', path: 'events/property_values?key=order_id&' },
]
/** For scale on a shared machine, in the same rounds: the gateway's cheapest question (five minutes of events). */
const LIVE = `/insights/${PROJECT}/live`

const TARGET_MS = 30
const TARGET_RATIO = 2

export async function main(): Promise<void> {
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir: MAIN.dir })
  const started = performance.now()
  const applied = await migrate(engine)
  await engine.close()
  if (applied.length)
    console.log(
      `migrations ${applied.join(', ')} applied to ${MAIN.events} events in ${((performance.now() - started) / 1000).toFixed(1)} s (the summaries' backfill)`,
    )
  await withTimedGateway('sessions', async ({ fresh }) => {
    const urls = QUESTIONS.flatMap(({ path }) => Object.values(WINDOWS).map((window) => `/insights/${PROJECT}/${path}${window}`))
    for (const url of [...urls, LIVE]) await get(url, fresh)
    const medians = await interleaved([...urls, LIVE].map((url) => () => get(url, fresh)))
    console.log(
      `\nDiscovery through the gateway, ${MAIN.events} events, Europe/Berlin windows, medians of interleaved runs (targets: <= ${TARGET_MS} ms, 360-day <= ${TARGET_RATIO}x 30-day)`,
    )
    console.log('| question | 30-day p50 ms | 360-day p50 ms | 360 / 30 | no window (whole history) p50 ms |')
    console.log('|---|---|---|---|---|')
    const perQuestion = Object.keys(WINDOWS).length
    QUESTIONS.forEach(({ label }, index) => {
      const [month, year, history] = medians.slice(perQuestion * index, perQuestion * (index + 1))
      console.log(`| ${label} | ${month.toFixed(1)} | ${year.toFixed(1)} | ${(year / month).toFixed(2)}× | ${history.toFixed(1)} |`)
    })
    console.log(`\nFor scale, in the same rounds: /live ${medians[urls.length].toFixed(1)} ms`)
  })
}
