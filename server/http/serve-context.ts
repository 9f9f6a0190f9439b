// What a route answered by its own handler (a stream) works with: the runner, the directory, the clock.
import type { Runner } from '../../queries/core/run'
import type { Directory } from './directory'
import type { Metrics } from './metrics'

export interface ServeContext {
  runner: Runner
  directory: Directory
  clock: () => Date
  metrics?: Pick<Metrics, 'exportRows'>
}
