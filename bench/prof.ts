import { loadConfig } from '../server/config'
import { openEngine, createRunner } from '../server/engine'
import { prepare } from '../queries/pipeline'
import { ROUTES, isResourceRoute } from '../server/routes'
;(async () => {
  const config = loadConfig({ QUARRY_DATA_DIR: '.bench-data', QUARRY_MAX_EXECUTION_SECONDS: '120' })
  const engine = await openEngine(config.engine)
  const runner = createRunner(engine, config)
  const scope = { project: { id: 'bench', name: 'bench', timezone: 'Europe/Berlin' }, now: new Date('2026-01-01T00:00:00Z'), sessionLookbackMs: 24 * 3600_000 }
  for (const name of (process.argv[2] ?? 'metrics,pages,referrer').split(',')) {
    const route = ROUTES.find((r) => r.path.endsWith('/' + name))!
    if (!isResourceRoute(route)) continue
    const { compiled } = prepare(route.resource, { startDate: '2025-12-02', endDate: '2025-12-31' }, scope)
    for (let i = 0; i < 2; i++) {
      const t = performance.now()
      const { rows } = await runner.run(compiled)
      console.log(name, Math.round(performance.now() - t), 'ms', rows.length)
    }
  }
  await engine.close()
})()
