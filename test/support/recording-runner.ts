// A runner that records every data statement handed to it, for tests that check what a request ran.
import type { CompiledQuery } from '../../queries/core/compiled'
import type { CompiledAtTurn, Runner } from '../../queries/run/runner'

const isCompiled = (value: unknown): value is CompiledQuery =>
  typeof value === 'object' && value !== null && 'sql' in value && 'params' in value
const isAtTurn = (value: unknown): value is CompiledAtTurn => typeof value === 'object' && value !== null && 'compileAtTurn' in value

/** `query` recording itself in `ran` once compiled at its turn. */
const recordedAtTurn = (query: CompiledAtTurn, ran: CompiledQuery[]): CompiledAtTurn => ({
  template: query.template,
  compileAtTurn() {
    const compiled = query.compileAtTurn()
    ran.push(compiled)
    return compiled
  },
})

/**
 * `runner`, recording every data statement handed to it in `ran` (one compiled at its turn when its turn
 * comes): every one passes `runText` or `stream` (with the proxy as `this`, so `run` and a client's runner
 * lead there too); control look-ups are not data, and go to `controls` when it is given.
 */
export function recording(runner: Runner, ran: CompiledQuery[], controls?: CompiledQuery[]): Runner {
  return new Proxy(runner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if ((property === 'runText' || property === 'stream') && isCompiled(args[0])) ran.push(args[0])
        if (property === 'runText' && isAtTurn(args[0])) args[0] = recordedAtTurn(args[0], ran)
        if (property === 'control' && isCompiled(args[0])) controls?.push(args[0])
        return value.apply(receiver, args)
      }
    },
  })
}
