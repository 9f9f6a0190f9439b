// The response schemas of `compare` (queries/core/compare.ts): the `previous` figures and their `change` a
// compared answer gains beside a row's figures, for /openapi.json and the tests that hold answers to it.

type Properties = Record<string, object>

const NULL_CHANGE = 'null where the change has no value: before was null (or, for a relative change, 0), or the figure is null'

/** The change of a figure: a percent for counts, sums and durations, points for rates. */
const changeOf = (rate: boolean) => ({
  type: ['number', 'null'],
  description: rate ? `Difference in points, two decimals; ${NULL_CHANGE}` : `Percent change, two decimals; ${NULL_CHANGE}`,
})

/** `previous`: the figures over the compared window (`figures`' schemas), or null where the key has no data there. */
export function previousSchema(
  figures: Properties,
  description = "The same figures over the compared window; null where this row's key has none there",
) {
  return { type: ['object', 'null'], additionalProperties: false, required: Object.keys(figures), properties: figures, description }
}

/** `change`: one value per figure, `rates` in points and the others relative. */
export function changeSchema(figures: readonly string[], rates: ReadonlySet<string>) {
  return {
    type: 'object',
    additionalProperties: false,
    required: [...figures],
    properties: Object.fromEntries(figures.map((name) => [name, changeOf(rates.has(name))])),
    description: 'Per figure, the change from `previous` (compare only)',
  }
}
