// The introduction of /openapi.json (`info.description`, Markdown), the top of /docs: what the gateway is,
// how to authenticate (and where the demo credentials are), a first call and a funnel, and where to read on.
import { PROJECT_PLACEHOLDER, parameterDocOf } from './openapi-examples'

const ORIGIN = 'http://localhost:3000'

/** The funnel example's steps as `--data-urlencode` arguments, so the curl call is the page's example. */
function funnelStepArguments(): string[] {
  const [first] = Object.values(parameterDocOf('/insights/:projectId/funnel', 'steps')?.examples ?? {})
  if (!first) throw new Error("the funnel's steps parameter has no example to show")
  return (first.value as string[]).map((step) => `  --data-urlencode 'steps=${step}'`)
}

function demoParagraph(demoProjectId: string | undefined): string {
  const where =
    'On its first start with the embedded engine the gateway creates a `demo` project with 30 days of generated events and a read client for it: it prints the client id and secret once, and saves them to `demo-credentials.json` in its data directory (`QUARRY_DATA_DIR`, `.data` by default).'
  if (demoProjectId) return `${where} This gateway has it: every \`projectId\` below is filled with \`${demoProjectId}\`.`
  return `${where} This gateway has no demo project: replace \`${PROJECT_PLACEHOLDER}\` with your project, and create a client with \`npm run cli -- client create --type read --project <id>\` (it prints the secret once).`
}

export function introduction(demoProjectId: string | undefined): string {
  const project = demoProjectId ?? PROJECT_PLACEHOLDER
  return [
    'Quarry is a read-only HTTP gateway that answers analytics questions (metrics, pages, breakdowns, funnels, retention, paths, charts, raw events) over the events of a project stored in ClickHouse.',
    '## Authentication',
    'Every route but those under **Health** needs an API client: send its id and secret as the headers `openpanel-client-id` and `openpanel-client-secret`, or as HTTP Basic (the id as user name, the secret as password). Press **Authorize** to enter them on this page; **Try it out** then sends them with each call.',
    demoParagraph(demoProjectId),
    '## A first call',
    'The headline metrics of the last 30 days, one point per day:',
    ['```sh', `curl -s -u "$CLIENT_ID:$CLIENT_SECRET" '${ORIGIN}/insights/${project}/metrics?range=30d&interval=day'`, '```'].join('\n'),
    'A funnel: sessions viewing a product page, then adding to cart, then purchasing (each step an event name or a JSON step with filters):',
    [
      '```sh',
      `curl -s -G -u "$CLIENT_ID:$CLIENT_SECRET" '${ORIGIN}/insights/${project}/funnel' \\`,
      "  --data-urlencode 'range=30d' \\",
      funnelStepArguments().join(' \\\n'),
      '```',
    ].join('\n'),
    'Every operation below opens with its parameters filled with a worked example: **Try it out**, then **Execute**. Bad parameters answer 400 listing every problem.',
    '## MCP',
    "`POST /mcp` serves the same questions to agents as Model Context Protocol tools (Streamable HTTP, stateless): OpenPanel's analytics tools by their names and inputs, and Quarry's own (funnels with step filters, paths, filter trees, session pages, charts with formulas). Each tool is answered by the route it mirrors, with the same credentials (as headers), rate limit and caps; the tool list and a client configuration are in `docs/api/mcp.md`.",
    '## Read more',
    'In the repository: `docs/api/parameters.md` (date windows, intervals, paging), `docs/api/filters.md` (flat filters and filter trees), `docs/api/charts.md`, `docs/api/export.md`, `docs/api/errors.md`, and `docs/definitions.md` for the exact definition of every figure.',
  ].join('\n\n')
}
