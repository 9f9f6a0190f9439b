// Statements of one request run side by side; when one fails, the others are aborted rather than left
// running (their signal carries the abort to the runner).
export type Statement<T> = (signal: AbortSignal) => Promise<T>

export async function runTogether<T extends unknown[]>(signal: AbortSignal, statements: { [K in keyof T]: Statement<T[K]> }): Promise<T> {
  const sibling = new AbortController()
  const shared = AbortSignal.any([signal, sibling.signal])
  return Promise.all(
    statements.map((statement: Statement<unknown>) =>
      statement(shared).catch((error: unknown) => {
        sibling.abort()
        throw error
      }),
    ),
  ) as Promise<T>
}
