// The gateway a timed bench mode asks: the main dataset opened (seeded and built the first time), a gateway
// started on its directory, the bench client's headers, and the gateway stopped once the mode is done.
import { startGateway, type ChildGateway } from './gateway'
import { BENCH_GATEWAY_ENV, MAIN, PORT, openDataset, waitForAuth, type Reads } from './setup'

export interface TimedGateway {
  gateway: ChildGateway
  /** The bench client's credentials, as request headers. */
  auth: Record<string, string>
  /** The same with `Cache-Control: no-cache`: a fresh answer, so that a latency measures engine work. */
  fresh: Record<string, string>
}

/** Runs `body` against a gateway on the main dataset, built for what it `reads`; stops the gateway after. */
export async function withTimedGateway(reads: Reads, body: (timed: TimedGateway) => Promise<void>): Promise<void> {
  const prepared = await openDataset(MAIN, reads)
  // One process owns a data directory, so the engine is closed before the gateway opens it.
  await prepared.engine.close()
  const auth = { 'openpanel-client-id': prepared.credentials.id, 'openpanel-client-secret': prepared.credentials.secret }
  const fresh = { ...auth, 'cache-control': 'no-cache' }
  const gateway = await startGateway({ dataDir: MAIN.dir, port: PORT, env: BENCH_GATEWAY_ENV })
  try {
    // On a loaded machine the fresh gateway may take longer than one wait to answer its first request.
    await waitForAuth(auth)
      .catch(() => waitForAuth(auth))
      .catch(() => waitForAuth(auth))
    await body({ gateway, auth, fresh })
  } finally {
    await gateway.stop()
  }
}
