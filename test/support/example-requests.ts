// The requests /docs fills in from /openapi.json: for each operation, the n-th example of every parameter
// (its last when it has fewer), the way "Try it out" fills a form with the chosen examples. An empty value
// is a parameter left out; arrays are repeated parameters.

type Example = { summary?: string; value: unknown }
export type DocumentParameter = { name: string; in: string; required?: boolean; description?: string; examples?: Record<string, Example> }
type Document = { paths: Record<string, { get: { parameters?: DocumentParameter[] } }> }

export interface ExampleRequest {
  /** The path with its path parameters filled, e.g. `/insights/demo/funnel`. */
  path: string
  /** The query parameters as Express's simple parser hands them over: text, or a list of texts. */
  query: Record<string, string | string[]>
  /** `path` and `query` as one URL path, arrays as repeated parameters. */
  url: string
  /** The path's values other than the project (a profile's id), which the route's resource reads as parameters. */
  pathValues: Record<string, string>
}

const valuesOf = (parameter: DocumentParameter): unknown[] => Object.values(parameter.examples ?? {}).map((example) => example.value)

const asQueryValue = (value: unknown): string | string[] => (Array.isArray(value) ? value.map(String) : String(value))

/** The operation's example requests, one per example index up to its longest parameter's count. */
export function exampleRequestsOf(document: Document, openApiPath: string): ExampleRequest[] {
  const parameters = document.paths[openApiPath].get.parameters ?? []
  const count = Math.max(1, ...parameters.map((parameter) => valuesOf(parameter).length))
  return Array.from({ length: count }, (_, index) => {
    const chosen = parameters.map((parameter) => {
      const values = valuesOf(parameter)
      return { parameter, value: values[Math.min(index, values.length - 1)] }
    })
    const sent = chosen.filter(({ value }) => value !== undefined && value !== '')
    const path = sent
      .filter(({ parameter }) => parameter.in === 'path')
      .reduce((filled, { parameter, value }) => filled.replace(`{${parameter.name}}`, encodeURIComponent(String(value))), openApiPath)
    const query = Object.fromEntries(
      sent.filter(({ parameter }) => parameter.in === 'query').map(({ parameter, value }) => [parameter.name, asQueryValue(value)]),
    )
    const search = new URLSearchParams(
      Object.entries(query).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => [name, item])),
    )
    const pathValues = Object.fromEntries(
      sent
        .filter(({ parameter }) => parameter.in === 'path' && parameter.name !== 'projectId')
        .map(({ parameter, value }) => [parameter.name, String(value)]),
    )
    return { path, query, url: search.size ? `${path}?${search}` : path, pathValues }
  })
}
