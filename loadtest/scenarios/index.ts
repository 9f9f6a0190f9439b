// The scenarios `npm run loadtest -- --scenario <name>` knows, each also as `<name>-cold` (no result cache).
import { breakdowns } from './breakdowns'
import { dashboard } from './dashboard'
import { exportScenario } from './export'
import { cold, type Scenario } from './scenario'

const WARM = [dashboard, breakdowns, exportScenario]

export const SCENARIOS: Record<string, Scenario> = Object.fromEntries(
  [...WARM, ...WARM.map(cold)].map((scenario) => [scenario.name, scenario]),
)
