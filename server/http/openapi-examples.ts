// What /openapi.json says about each parameter beyond its schema: a description and worked examples,
// keyed by parameter name with per-route overrides, and the family (tag) of each route. A new route or
// parameter adds its entry here; test/unit/openapi.test.ts parses every example with the route's own
// parser and test/integration/docs.test.ts sends it.
import { dimensions } from '../../queries/insights/dimensions'
import type { Route } from '../routes/routes'

/** A named example value; `''` means the parameter is not sent (Swagger UI leaves it empty). */
export interface ParameterExample {
  summary: string
  value: unknown
}

/** A parameter's description (Markdown) and its examples, the first of which "Try it out" fills in. */
export interface ParameterDoc {
  description: string
  examples: Record<string, ParameterExample>
}

/** The value that stands for "not sent". */
export const NOT_SENT = ''

/** `projectId` without a demo project. */
export const PROJECT_PLACEHOLDER = 'your-project-id'

const notSent = (summary: string): ParameterExample => ({ summary, value: NOT_SENT })
const json = (value: unknown): string => JSON.stringify(value)

/** A flat filter list: ANDed, an event field narrows the page views counted. */
const FLAT_FILTERS = json([
  { name: 'device', operator: 'is', value: ['desktop', 'mobile'] },
  { name: 'path', operator: 'startsWith', value: ['/products'] },
])
/** A tree: an `or` of session leaves, and a `performed` leaf with a numeric property filter. */
const TREE_FILTERS = json({
  and: [
    {
      or: [
        { name: 'utm_source', operator: 'is', value: ['google'] },
        { name: 'referrer_type', operator: 'is', value: ['social'] },
      ],
    },
    { performed: { name: 'add_to_cart', filters: [{ name: 'properties.quantity', operator: 'gte', value: [1] }] } },
  ],
})
/** Filters read on each event (no session-only attributes such as the entry page). */
const EVENT_FILTERS = json([{ name: 'path', operator: 'startsWith', value: ['/products'] }])

const FILTERS_DESCRIPTION =
  'URL-encoded JSON: a flat array of `{ "name", "operator", "value" }` filters, ANDed, or a filter tree of `and`, `or`, `not`, session leaves and `performed` leaves (`docs/api/filters.md` in the repository).'

const TREE_OR_FLAT = {
  flat: { summary: 'A flat list: desktop or mobile sessions, page views under /products', value: FLAT_FILTERS },
  tree: { summary: 'A tree: from Google or social, and added to cart', value: TREE_FILTERS },
  none: notSent('No filters'),
}

/** Descriptions and examples by parameter name, for every route that takes the parameter. */
const PARAMETERS: Record<string, ParameterDoc> = {
  projectId: {
    description: 'The project to read; a `read` client may read only its own.',
    examples: { project: { summary: 'The project', value: PROJECT_PLACEHOLDER } },
  },
  range: {
    description: 'A named window, computed in `timezone` (`7d` is today and the 6 days before); `startDate` overrides it.',
    examples: {
      last7days: { summary: 'The last 7 days, today included', value: '7d' },
      last30days: { summary: 'The last 30 days, today included', value: '30d' },
    },
  },
  startDate: {
    description:
      '`YYYY-MM-DD` (midnight in `timezone`) or an ISO date-time with `Z` or an offset; overrides `range`. Alone, the window runs to now.',
    examples: { none: notSent('Not sent: the window is range'), day: { summary: 'From a calendar day', value: '2026-11-01' } },
  },
  endDate: {
    description: '`YYYY-MM-DD` (its whole day included) or an ISO date-time; needs `startDate`.',
    examples: { none: notSent('Not sent: the window is range'), day: { summary: 'Up to a calendar day, included', value: '2026-11-30' } },
  },
  timezone: {
    description: "IANA time zone the window, days and buckets are computed in; the project's by default.",
    examples: { utc: { summary: 'UTC', value: 'UTC' } },
  },
  filters: { description: FILTERS_DESCRIPTION, examples: TREE_OR_FLAT },
  interval: {
    description: 'Bucket of the series; by default `hour` up to 2 days, `day` up to 92 days, `week` up to 366 days, else `month`.',
    examples: { day: { summary: 'One point per day', value: 'day' } },
  },
  limit: { description: 'Rows per page.', examples: { ten: { summary: '10 rows', value: 10 } } },
  cursor: {
    description: 'The 1-based page of `limit` rows; the `Link` header names the next one.',
    examples: { first: { summary: 'The first page', value: 1 } },
  },
  search: {
    description: 'Keeps the rows whose text contains this, ignoring case.',
    examples: { none: notSent('Not sent: every row'), text: { summary: 'Containing "product"', value: 'product' } },
  },
  compare: {
    description:
      'Compares with the window before: `previous` is the window of equal length just before, `year` the same local dates a year before. Each row (and `/metrics` and each bucket) gains `previous`, the same figures there (`null` for a key without data there), and `change`: percent for counts, sums and durations, points for rates.',
    examples: {
      none: notSent('Not sent: no comparison'),
      previous: { summary: 'The window just before', value: 'previous' },
      year: { summary: 'A year before', value: 'year' },
    },
  },
  'If-None-Match': {
    description: 'The `ETag` of an earlier answer: `304` while it still holds.',
    examples: {
      none: notSent('Not sent: always a 200'),
      etag: { summary: 'An ETag (this one matches nothing, so 200)', value: 'W/"2a-0000000000000000000000000000"' },
    },
  },
}

/** Where a name means something else on a route, or a route needs its own worked example. */
const ROUTE_PARAMETERS: Record<string, Record<string, Partial<ParameterDoc>>> = {
  '/insights/:projectId/pages': {
    sortBy: {
      description: 'The measure rows are ordered by; ties by origin, then path.',
      examples: { sessions: { summary: 'By sessions', value: 'sessions' } },
    },
    sortOrder: {
      description: 'Direction of `sortBy`; rows without a value (null) come last either way.',
      examples: { desc: { summary: 'Largest first', value: 'desc' } },
    },
    search: { description: 'Keeps the pages whose path or title contains this text, ignoring case.' },
  },
  '/insights/:projectId/sessions': {
    limit: { examples: { fifty: { summary: '50 sessions', value: 50 } } },
    cursor: {
      description: "The previous page's `meta.nextCursor` (opaque); the first page without it.",
      examples: { none: notSent('The first page') },
    },
  },
  '/insights/:projectId/pages/entry_exit': {
    mode: {
      description: '`entry`: sessions by the page they entered on; `exit`: by the page of their last page view.',
      examples: { entry: { summary: 'By entry page', value: 'entry' }, exit: { summary: 'By exit page', value: 'exit' } },
    },
  },
  '/insights/:projectId/events/properties': {
    event: {
      description: 'Counts only events of this name (every name when absent).',
      examples: { none: notSent('Every event'), purchase: { summary: 'Purchases only', value: 'purchase' } },
    },
  },
  '/insights/:projectId/events/property_values': {
    key: {
      description: 'The property key whose values are counted.',
      examples: { currency: { summary: 'The currency of carts and purchases', value: 'currency' } },
    },
    event: {
      description: 'Counts only events of this name (every name when absent).',
      examples: { none: notSent('Every event'), purchase: { summary: 'Purchases only', value: 'purchase' } },
    },
    search: { examples: { none: notSent('Not sent: every value'), text: { summary: 'Containing "eu"', value: 'eu' } } },
  },
  '/insights/:projectId/funnel': {
    steps: {
      description:
        '2 to 10 steps, in order: each an event name, or a JSON step `{ "name", "filters" }` whose filters read that event (flat filters on event fields). Repeat the parameter per step, or send one JSON array of steps.',
      examples: {
        repeated: {
          summary: 'A product page view, then add to cart, then purchase',
          value: [
            json({ name: 'screen_view', filters: [{ name: 'path', operator: 'startsWith', value: ['/products/'] }] }),
            'add_to_cart',
            'purchase',
          ],
        },
        array: {
          summary: 'One JSON array: a view of /pricing, then a signup by email',
          value: [
            json([
              { name: 'screen_view', filters: [{ name: 'path', operator: 'is', value: ['/pricing'] }] },
              { name: 'signup', filters: [{ name: 'properties.method', operator: 'is', value: ['email'] }] },
            ]),
          ],
        },
      },
    },
    filters: {
      description:
        'URL-encoded JSON: a flat array of filters, ANDed with every step (event fields and session attributes as each event carries them).',
      examples: {
        flat: { summary: 'Mobile devices only', value: json([{ name: 'device', operator: 'is', value: ['mobile'] }]) },
        none: notSent('No filters'),
      },
    },
    windowHours: {
      description: 'Hours from the first step within which the last must happen.',
      examples: { day: { summary: 'One day', value: 24 } },
    },
    groupBy: {
      description: 'Count sessions (`session_id`) or visitors (`profile_id`) through the steps.',
      examples: { sessions: { summary: 'Sessions', value: 'session_id' } },
    },
    breakdown: {
      description: 'One event field, session attribute (as the event carries it) or `properties.<key>`: a funnel per value.',
      examples: { none: notSent('One funnel'), country: { summary: 'A funnel per country', value: 'country' } },
    },
    breakdownLimit: {
      description: 'Breakdown values kept, by the sessions or visitors entering the funnel.',
      examples: { five: { summary: '5 values', value: 5 } },
    },
  },
  '/insights/:projectId/retention': {
    filters: {
      description: 'URL-encoded JSON: a flat array of filters, ANDed, read on both the cohort and the return events.',
      examples: {
        flat: { summary: 'Desktop only', value: json([{ name: 'device', operator: 'is', value: ['desktop'] }]) },
        none: notSent('No filters'),
      },
    },
    startEvent: {
      description:
        'The step that places a visitor in a cohort: an event name or a JSON step `{ "name", "filters" }`; any event by default.',
      examples: {
        name: { summary: 'Signed up', value: 'signup' },
        step: {
          summary: 'Signed up on the plus plan',
          value: json({ name: 'signup', filters: [{ name: 'properties.plan', operator: 'is', value: ['plus'] }] }),
        },
      },
    },
    returnEvent: {
      description: 'The step that counts as coming back (a name or a JSON step); any event by default.',
      examples: { name: { summary: 'Any page view', value: 'screen_view' } },
    },
    period: {
      description: 'The length of a cohort and of each period after it.',
      examples: { week: { summary: 'Weekly cohorts', value: 'week' } },
    },
    periods: { description: 'Periods counted after each cohort.', examples: { four: { summary: '4 periods', value: 4 } } },
    criteria: {
      description: '`on`: back in that very period; `on_or_after`: back in it or any later one.',
      examples: { on: { summary: 'In that period', value: 'on' } },
    },
  },
  '/insights/:projectId/paths': {
    node: {
      description: "`page`: the path of each page view; `event`: each event's name.",
      examples: { page: { summary: 'Pages', value: 'page' } },
    },
    start: {
      description: 'The step (an event name or a JSON step) a sequence begins at; each session from its first event otherwise.',
      examples: {
        none: notSent("From each session's first event"),
        step: {
          summary: 'From a view of /pricing',
          value: json({ name: 'screen_view', filters: [{ name: 'path', operator: 'is', value: ['/pricing'] }] }),
        },
      },
    },
    steps: { description: 'Steps of each sequence.', examples: { five: { summary: '5 steps', value: 5 } } },
    limit: { description: 'Nodes and links kept per step.', examples: { ten: { summary: '10 per step', value: 10 } } },
  },
  '/export/charts': {
    projectId: { description: "The project to read; a `read` client's own by default." },
    project_id: {
      description: "OpenPanel's name for `projectId`; send one of the two.",
      examples: { none: notSent('Not sent: projectId names it') },
    },
    series: {
      description:
        'URL-encoded JSON: up to 10 items, lettered A, B, ...: event items `{ "name", "segment", "filters", "property", "displayName" }` and formula items `{ "type": "formula", "formula" }` over the letters.',
      examples: {
        formula: {
          summary: 'Visitors viewing pages, visitors purchasing, and the conversion rate (B/A*100)',
          value: json([
            { name: 'screen_view', segment: 'user' },
            { name: 'purchase', segment: 'user', filters: [{ name: 'properties.currency', operator: 'is', value: ['EUR', 'USD'] }] },
            { type: 'formula', formula: 'B/A*100', displayName: 'Conversion %' },
          ]),
        },
        revenue: {
          summary: "The sum of the purchases' price property",
          value: json([{ name: 'purchase', segment: 'property_sum', property: 'properties.price' }]),
        },
      },
    },
    breakdowns: {
      description: 'URL-encoded JSON: up to 3 `{ "name" }`, each an event field or `properties.<key>`; a series per value.',
      examples: { none: notSent('No breakdown'), device: { summary: 'A series per device', value: json([{ name: 'device' }]) } },
    },
    breakdownLimit: { description: 'Breakdown values kept, by their total.', examples: { five: { summary: '5 values', value: 5 } } },
    previous: {
      description: '`true`: the same series over the window before this one too.',
      examples: { no: { summary: 'This window only', value: 'false' }, yes: { summary: 'With the previous period', value: 'true' } },
    },
  },
  '/export/events': {
    projectId: { description: "The project to read; a `read` client's own by default." },
    project_id: {
      description: "OpenPanel's name for `projectId`; send one of the two.",
      examples: { none: notSent('Not sent: projectId names it') },
    },
    event: {
      description: 'Event names to keep (repeat for several); every name by default.',
      examples: { purchase: { summary: 'Purchases', value: 'purchase' } },
    },
    profileId: { description: "Keeps one profile's events.", examples: { none: notSent('Every profile') } },
    start: {
      description: 'First instant (ISO date or date-time, in `timezone`); 30 days before `end` by default.',
      examples: { none: notSent('Not sent: the last 30 days'), day: { summary: 'From a day', value: '2026-11-01' } },
    },
    end: {
      description: 'End of the window, excluded (ISO date or date-time); now by default.',
      examples: { none: notSent('Not sent: up to now'), day: { summary: 'Up to a day', value: '2026-12-01' } },
    },
    filters: {
      description: 'URL-encoded JSON: a flat array of filters on the fields of each event, ANDed.',
      examples: { flat: { summary: 'Events on product pages', value: EVENT_FILTERS }, none: notSent('No filters') },
    },
    includes: {
      description: 'Extra fields of each event (repeat for several).',
      examples: { properties: { summary: 'The event properties', value: 'properties' } },
    },
    limit: { description: 'Events per page (JSON) or per chunk.', examples: { ten: { summary: '10 events', value: 10 } } },
    cursor: {
      description: "The previous page's `meta.nextCursor` (opaque keyset cursor); the first page without it.",
      examples: { none: notSent('The first page') },
    },
    page: {
      description: 'A 1-based page number, for clients that page by number (slower than `cursor` deep down).',
      examples: { none: notSent('Not sent: keyset paging') },
    },
    format: {
      description: '`json`: pages with `meta`; `ndjson` or `csv`: one stream of every matching event.',
      examples: { json: { summary: 'JSON pages', value: 'json' } },
    },
  },
}

/** The description and examples of `name` on the route at `path` (Express form), or undefined. */
export function parameterDocOf(path: string, name: string): ParameterDoc | undefined {
  const shared = PARAMETERS[name]
  const own = ROUTE_PARAMETERS[path]?.[name]
  if (!shared && !own) return undefined
  return { description: own?.description ?? shared?.description ?? '', examples: own?.examples ?? shared?.examples ?? {} }
}

/** Route families, in page order; `collapsed` ones start folded on /docs. */
export const FAMILIES = [
  { name: 'Overview', description: 'Live visitors and the headline metrics of a window' },
  { name: 'Pages', description: 'Top pages, entry and exit pages' },
  {
    name: 'Breakdowns',
    description: 'Sessions by one attribute (referrer, UTM, location, device): one route per attribute, the same parameters',
    collapsed: true,
  },
  { name: 'Behaviour', description: 'Funnels, retention and paths' },
  { name: 'Discovery', description: 'Which event names, property keys and values a window holds' },
  { name: 'Sessions', description: 'The sessions of a window, one by one' },
  { name: 'Export', description: 'Raw events as JSON pages or streams' },
  { name: 'Charts', description: 'Time series of event series and formulas' },
  { name: 'Batch', description: 'Up to 20 insights questions in one request, each answered as its GET answers it' },
  { name: 'Health', description: 'Liveness, readiness and this document (no credentials)' },
] as const
export type Family = (typeof FAMILIES)[number]['name']

const FAMILY_OF_PATH: Record<string, Family> = {
  '/insights/:projectId/live': 'Overview',
  '/insights/:projectId/metrics': 'Overview',
  '/insights/:projectId/pages': 'Pages',
  '/insights/:projectId/pages/entry_exit': 'Pages',
  '/insights/:projectId/sessions': 'Sessions',
  '/insights/:projectId/events/names': 'Discovery',
  '/insights/:projectId/events/properties': 'Discovery',
  '/insights/:projectId/events/property_values': 'Discovery',
  '/insights/:projectId/funnel': 'Behaviour',
  '/insights/:projectId/retention': 'Behaviour',
  '/insights/:projectId/paths': 'Behaviour',
  '/export/charts': 'Charts',
  '/export/events': 'Export',
}

/** A route's family: its entry above, or Breakdowns for a dimension's route; a route with neither is an error. */
export function familyOf(route: Route): Family {
  const family = FAMILY_OF_PATH[route.path] ?? (dimensions.some((dimension) => dimension === route.resource) ? 'Breakdowns' : undefined)
  if (!family) throw new Error(`${route.path} has no family in server/http/openapi-examples.ts`)
  return family
}

/** The batch route's example body: a dashboard of one window (the headline metrics, top pages, two breakdowns, a funnel). */
export const BATCH_EXAMPLE = {
  requests: [
    { id: 'metrics', route: 'metrics', params: { range: '30d', interval: 'day' } },
    { id: 'pages', route: 'pages', params: { range: '30d', limit: 10 } },
    { id: 'referrers', route: 'referrer_name', params: { range: '30d' } },
    {
      id: 'mobile-countries',
      route: 'country',
      params: { range: '30d', filters: [{ name: 'device', operator: 'is', value: ['mobile'] }] },
    },
    { id: 'checkout', route: 'funnel', params: { range: '30d', steps: ['screen_view', 'add_to_cart', 'purchase'] } },
  ],
}
