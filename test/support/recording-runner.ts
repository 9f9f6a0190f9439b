// A runner that records every data statement handed to it, for tests that check what a request ran.
import type { CompiledQuery } from '../../queries/core/compiled'
import type { Runner } from '../../queries/core/run'

const isCompiled = (value: unknown): value is CompiledQuery => typeof value === 'object' && value !== null && 'sql' in value && 'params' in value

/**
 * `runner`, recording every data statement handed to it in `ran`: every one passes `runText` (with the
 * proxy as `this`, so `run` and a client's runner lead there too); control look-ups are not data, and
 * go to `controls` when it is given.
 */
export function recording(runner: Runner, ran: CompiledQuery[], controls?: CompiledQuery[]): Runner {
  return new Proxy(runner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (property === 'runText' && isCompiled(args[0])) ran.push(args[0])
        if (property === 'control' && isCompiled(args[0])) controls?.push(args[0])
        return value.apply(receiver, args)
      }
    },
  })
}
