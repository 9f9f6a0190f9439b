// What /openapi.json says about each parameter beyond its schema: a description and worked examples,
// keyed by parameter name with per-route overrides, and the family (tag) of each route. A new route or
// parameter adds its entry here; test/unit/openapi.test.ts parses every example with the route's own
// parser and test/integration/docs.test.ts sends it.
import { dimensions } from '../../queries/insights/dimensions'
import { TRAFFIC_BREAKDOWNS } from '../../queries/openpanel/traffic'
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
  detail: {
    description:
      '`true`: Quarry\'s richer answer instead of OpenPanel\'s shape on a path both answer (docs/openpanel.md, "When shapes collide").',
    examples: { openpanel: { summary: "OpenPanel's shape", value: false }, quarry: { summary: "Quarry's answer", value: true } },
  },
  'If-None-Match': {
    description: 'The `ETag` of an earlier answer: `304` while it still holds.',
    examples: {
      none: notSent('Not sent: always a 200'),
      etag: { summary: 'An ETag (this one matches nothing, so 200)', value: 'W/"2a-0000000000000000000000000000"' },
    },
  },
}

/** `names` of `parameters` as a route takes them only with `detail=true`: not sent in its first example, which asks OpenPanel's shape. */
function notSentWithoutDetail(parameters: Record<string, Partial<ParameterDoc>>, names: string[]): Record<string, Partial<ParameterDoc>> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        description: `With \`detail=true\` only. ${parameters[name].description}`,
        examples: { none: notSent("Not sent: OpenPanel's shape takes no such parameter"), ...parameters[name].examples },
      },
    ]),
  )
}

/** The parameters of Quarry's retention, on both retention routes. */
const RETENTION_PARAMETERS: Record<string, Partial<ParameterDoc>> = {
  filters: {
    description: 'URL-encoded JSON: a flat array of filters, ANDed, read on both the cohort and the return events.',
    examples: {
      flat: { summary: 'Desktop only', value: json([{ name: 'device', operator: 'is', value: ['desktop'] }]) },
      none: notSent('No filters'),
    },
  },
  startEvent: {
    description: 'The step that places a visitor in a cohort: an event name or a JSON step `{ "name", "filters" }`; any event by default.',
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
}

/** A profile and a group of the demo project (seed 42), for the people routes' worked examples. */
const DEMO_PROFILE = 'user_91bd76fbef4d6531'
const DEMO_GROUP = 'org_235'

/** The people routes' parameters: ids of the demo's, keyset cursors, and profile filters instead of session ones. */
function peopleParameters(): Record<string, Record<string, Partial<ParameterDoc>>> {
  const keysetCursor = {
    description: 'The `cursor` of the previous page\'s `Link: <...>; rel="next"` header (opaque keyset); the first page without it.',
    examples: { none: notSent('The first page') },
  }
  const profileId = {
    description: "The profile's id.",
    examples: { demo: { summary: 'A returning visitor of the demo', value: DEMO_PROFILE } },
  }
  return {
    '/insights/:projectId/profiles': {
      cursor: keysetCursor,
      name: { examples: { none: notSent('Any name'), ada: { summary: 'Words of a name', value: 'emma smith' } } },
      email: { examples: { none: notSent('Any email'), gmail: { summary: 'At gmail.com', value: 'gmail.com' } } },
      country: { examples: { none: notSent('Any country'), de: { summary: 'Germany', value: 'DE' } } },
      city: { examples: { none: notSent('Any city') } },
      device: { examples: { none: notSent('Any device') } },
      browser: { examples: { none: notSent('Any browser'), firefox: { summary: 'Firefox', value: 'Firefox' } } },
      inactiveDays: { examples: { none: notSent('Active or not'), week: { summary: 'No event in 7 days', value: 7 } } },
      minSessions: { examples: { none: notSent('Any number of sessions'), two: { summary: 'Two sessions or more', value: 2 } } },
      performedEvent: { examples: { none: notSent('Any events'), signup: { summary: 'Signed up', value: 'signup' } } },
      filters: {
        description:
          'URL-encoded JSON: `[{ "name", "operator", "value" }]` on `id`, `email`, `first_name`, `last_name` or `properties.<key>`, ANDed.',
        examples: {
          none: notSent('No filters'),
          plan: { summary: 'On the pro or plus plan', value: json([{ name: 'properties.plan', operator: 'is', value: ['pro', 'plus'] }]) },
        },
      },
    },
    '/insights/:projectId/profiles/:profileId': { profileId },
    '/insights/:projectId/profiles/:profileId/sessions': { profileId, cursor: keysetCursor },
    '/insights/:projectId/profiles/:profileId/metrics': { profileId },
    '/insights/:projectId/groups': {
      cursor: keysetCursor,
      type: { examples: { none: notSent('Every type'), company: { summary: 'Companies', value: 'company' } } },
      search: { description: 'Keeps the groups whose name or id contains this text, ignoring case.' },
    },
    '/insights/:projectId/groups/:groupId': {
      groupId: { description: "The group's id.", examples: { demo: { summary: 'A company of the demo', value: DEMO_GROUP } } },
    },
  }
}

/** Where a name means something else on a route, or a route needs its own worked example. */
const ROUTE_PARAMETERS: Record<string, Record<string, Partial<ParameterDoc>>> = {
  ...peopleParameters(),
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
    limit: { examples: { twenty: { summary: "20 sessions (OpenPanel's default)", value: 20 } } },
    cursor: {
      description:
        "The next page's cursor (opaque), as the `Link` header (or, with `detail=true`, `meta.nextCursor`) gives it; the first page without it.",
      examples: { none: notSent('The first page') },
    },
  },
  '/insights/:projectId/pages/entry_exit': {
    mode: {
      description:
        "`entry` (the default, as OpenPanel's): sessions by the page they entered on; `exit`: by the page of their last page view.",
      examples: { entry: { summary: 'By entry page', value: 'entry' }, exit: { summary: 'By exit page', value: 'exit' } },
    },
  },
  '/insights/:projectId/events/properties': {
    event: {
      description: 'Counts only events of this name (every name when absent).',
      examples: { none: notSent('Every event'), purchase: { summary: 'Purchases only', value: 'purchase' } },
    },
    eventName: {
      description: "OpenPanel's name of `event`: either may be sent, or both when equal.",
      examples: { none: notSent('Every event'), purchase: { summary: 'Purchases only', value: 'purchase' } },
    },
  },
  '/insights/:projectId/events/property_values': {
    key: {
      description: 'The property key whose values are counted.',
      examples: { currency: { summary: 'The currency of carts and purchases', value: 'currency' } },
    },
    propertyKey: {
      description: "OpenPanel's name of `key`: either must be sent, or both when equal.",
      examples: { none: notSent('Not sent: `key` names the property') },
    },
    event: {
      description: 'Counts only events of this name (every name when absent).',
      examples: { none: notSent('Every event'), purchase: { summary: 'Purchases only', value: 'purchase' } },
    },
    eventName: {
      description: "OpenPanel's name of `event`: either may be sent, or both when equal.",
      examples: { none: notSent('Every event'), purchase: { summary: 'Purchases only', value: 'purchase' } },
    },
    search: { examples: { none: notSent('Not sent: every value'), text: { summary: 'Containing "eu"', value: 'eu' } } },
  },
  '/insights/:projectId/table': {
    dimensions: {
      description:
        '1 to 3 distinct dimensions, a comma list or repeated: any breakdown attribute (`country`, `device`, `utm_source`, ...), `entry_path` or `exit_path`.',
      examples: {
        two: { summary: 'Country by device', value: 'country,device' },
        one: { summary: 'By entry path', value: 'entry_path' },
        three: { summary: 'Source, exit path and browser', value: 'utm_source,exit_path,browser' },
      },
    },
    metrics: {
      description:
        '1 to 8 distinct metrics, a comma list or repeated: `visitors`, `sessions`, `pageviews`, `bounce_rate`, `avg_session_duration`, `views_per_session`, `events`, `revenue`, `conversion_rate` (with `goal`).',
      examples: {
        five: { summary: 'Five session metrics', value: 'visitors,sessions,pageviews,bounce_rate,avg_session_duration' },
        goal: { summary: 'Sessions, conversion rate and revenue', value: 'sessions,conversion_rate,revenue' },
        events: { summary: 'Events and views per session', value: 'events,views_per_session' },
      },
    },
    goal: {
      description:
        'URL-encoded JSON: a `performed` leaf, `{ "performed": { "name", "filters" } }`. Required with `conversion_rate`, refused without it.',
      examples: {
        none: notSent('No goal (no conversion_rate)'),
        purchase: { summary: 'A purchase', value: json({ performed: { name: 'purchase' } }) },
        later: notSent('No goal'),
      },
    },
    orderBy: {
      description:
        '`metric:desc` or `metric:asc`, one of the metrics asked; default the first metric, descending. Ties by the dimension values, nulls last.',
      examples: {
        none: notSent('The first metric, largest first'),
        conversion: { summary: 'Highest conversion rate first', value: 'conversion_rate:desc' },
        fewest: { summary: 'Fewest events first', value: 'events:asc' },
      },
    },
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
    ...RETENTION_PARAMETERS,
    ...notSentWithoutDetail(RETENTION_PARAMETERS, ['startEvent', 'returnEvent', 'period', 'periods', 'criteria']),
    range: { description: 'The window, when startDate is not given: 3m by default, 7d with detail=true.' },
  },
  '/insights/:projectId/retention/cohort': {
    ...RETENTION_PARAMETERS,
    range: { description: "The window, when startDate is not given: 3m by default (OpenPanel's cohorts cover about 12 weeks)." },
    period: {
      ...RETENTION_PARAMETERS.period,
      description: "The length of a cohort and of each period after it: week by default, as OpenPanel's.",
    },
    periods: { ...RETENTION_PARAMETERS.periods, description: "Periods counted after each cohort: 12 by default, as OpenPanel's." },
    criteria: {
      ...RETENTION_PARAMETERS.criteria,
      description: "`on`: back in that very period; `on_or_after` (the default, as OpenPanel's): back in it or any later one.",
    },
  },
  '/insights/:projectId/user_flow': {
    startEvent: {
      description: "The event name each session's flow begins at (its first such event).",
      examples: { signup: { summary: 'From a signup', value: 'signup' } },
    },
    mode: {
      description:
        '`after`: the events from `startEvent` on; `before`: the events up to it; `between`: from it to the first `endEvent` after it.',
      examples: { after: { summary: 'After the event', value: 'after' } },
    },
    steps: {
      description: 'Events in a flow, `startEvent` first (last with `mode=before`).',
      examples: { five: { summary: '5 steps', value: 5 } },
    },
    limit: { description: 'Nodes and links kept per step.', examples: { ten: { summary: '10 per step', value: 10 } } },
    endEvent: {
      description: 'The event name a flow ends at, with `mode=between` only.',
      examples: { none: notSent('Not sent') },
    },
    include: {
      description: 'The only event names a flow holds, besides `startEvent` and `endEvent`; repeat it for several.',
      examples: { none: notSent('Not sent') },
    },
    exclude: { description: 'Event names a flow skips; repeat it for several.', examples: { none: notSent('Not sent') } },
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

/** OpenPanel's analytics routes (queries/openpanel/): their own parameters, and OpenPanel's window by default. */
const OPENPANEL_DEFAULT_WINDOW = {
  startDate: {
    description:
      "`YYYY-MM-DD` or an ISO date-time; overrides `range`. Without it and without `range`, the window starts 30 days before today (OpenPanel's default).",
  },
  range: {
    description: 'A named window, computed in `timezone`; without it and without `startDate`, the window starts 30 days before today.',
  },
  endDate: { description: '`YYYY-MM-DD` (its whole day included) or an ISO date-time; up to now by default.' },
}
const openpanelLimit = (most: number, byDefault: number) => ({
  description: `Rows per page, 1 to ${most}; ${byDefault} by default (OpenPanel's), the \`Link\` header naming the next page.`,
})
const equality = (field: string, value: string) => ({
  description: `Keeps the events whose ${field} is exactly this.`,
  examples: { none: notSent('Not sent: any'), value: { summary: value, value } },
})
const OPENPANEL_ROUTE_PARAMETERS: Record<string, Record<string, Partial<ParameterDoc>>> = {
  '/insights/:projectId/overview': {
    ...OPENPANEL_DEFAULT_WINDOW,
    interval: { description: 'Bucket of the series: `hour`, `day` (default), `week` or `month`.' },
  },
  '/insights/:projectId/active_users': {
    ...OPENPANEL_DEFAULT_WINDOW,
    days: {
      description: 'Days a visitor stays counted after an active day, 1 to 90 (7 by default: WAU; 1 DAU, 30 MAU).',
      examples: { week: { summary: 'Weekly active', value: 7 }, month: { summary: 'Monthly active', value: 30 } },
    },
  },
  '/insights/:projectId/pages/top': { ...OPENPANEL_DEFAULT_WINDOW, limit: openpanelLimit(1000, 1000) },
  '/insights/:projectId/pages/performance': {
    ...OPENPANEL_DEFAULT_WINDOW,
    ...ROUTE_PARAMETERS['/insights/:projectId/pages'],
    limit: openpanelLimit(500, 50),
  },
  ...Object.fromEntries(
    Object.entries(TRAFFIC_BREAKDOWNS).map(([route, breakdowns]) => [
      `/insights/:projectId/traffic/${route}`,
      {
        ...OPENPANEL_DEFAULT_WINDOW,
        limit: openpanelLimit(1000, 1000),
        breakdown: {
          description: `The session attribute rows are grouped by: ${breakdowns.join(', ')} (\`${breakdowns[0]}\` by default).`,
          examples: { first: { summary: breakdowns[0], value: breakdowns[0] }, other: { summary: breakdowns[1], value: breakdowns[1] } },
        },
      },
    ]),
  ),
  '/insights/:projectId/engagement': {},
  '/insights/:projectId/events': {
    startDate: OPENPANEL_DEFAULT_WINDOW.startDate,
    endDate: OPENPANEL_DEFAULT_WINDOW.endDate,
    filters: {
      description: 'URL-encoded JSON: a flat array of filters on the fields of each event, ANDed.',
      examples: { flat: { summary: 'Events on product pages', value: EVENT_FILTERS }, none: notSent('No filters') },
    },
    eventNames: {
      description: 'Keeps the events of these names (repeat, or separate with commas).',
      examples: { none: notSent('Not sent: every name'), one: { summary: 'Purchases', value: 'purchase' } },
    },
    path: equality('path', '/pricing'),
    country: equality('country (ISO-2)', 'DE'),
    city: equality('city', 'Berlin'),
    device: equality('device', 'mobile'),
    browser: equality('browser', 'Firefox'),
    os: equality('operating system', 'iOS'),
    referrer: equality('referrer', 'https://www.google.com/'),
    referrerName: equality('referrer name', 'Google'),
    referrerType: equality('referrer type', 'search'),
    profileId: equality('profile id', 'user_1'),
    properties: {
      description: 'URL-encoded JSON object: keeps the events whose properties have these values.',
      examples: { none: notSent('Not sent: any'), plan: { summary: 'Plan pro', value: json({ plan: 'pro' }) } },
    },
    limit: openpanelLimit(100, 20),
  },
}

/** The description and examples of `name` on the route at `path` (Express form), or undefined. */
export function parameterDocOf(path: string, name: string): ParameterDoc | undefined {
  const shared = PARAMETERS[name]
  const own = ROUTE_PARAMETERS[path]?.[name] ?? OPENPANEL_ROUTE_PARAMETERS[path]?.[name]
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
  { name: 'People', description: 'Profiles (their events, sessions and metrics) and groups, as OpenPanel answers them' },
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
  '/insights/:projectId/retention/cohort': 'Behaviour',
  '/insights/:projectId/user_flow': 'Behaviour',
  '/insights/:projectId/paths': 'Behaviour',
  '/export/charts': 'Charts',
  '/export/events': 'Export',
  '/insights/:projectId/table': 'Overview',
  '/insights/:projectId/profiles': 'People',
  '/insights/:projectId/profiles/:profileId': 'People',
  '/insights/:projectId/profiles/:profileId/sessions': 'People',
  '/insights/:projectId/profiles/:profileId/metrics': 'People',
  '/insights/:projectId/groups/types': 'People',
  '/insights/:projectId/groups': 'People',
  '/insights/:projectId/groups/:groupId': 'People',
  '/insights/:projectId/overview': 'Overview',
  '/insights/:projectId/active_users': 'Overview',
  '/insights/:projectId/pages/top': 'Pages',
  '/insights/:projectId/pages/performance': 'Pages',
  '/insights/:projectId/traffic/referrers': 'Breakdowns',
  '/insights/:projectId/traffic/geo': 'Breakdowns',
  '/insights/:projectId/traffic/devices': 'Breakdowns',
  '/insights/:projectId/engagement': 'Overview',
  '/insights/:projectId/events': 'Export',
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
