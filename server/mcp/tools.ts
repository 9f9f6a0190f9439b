// The MCP tools in one table: each tool's name, inputs (JSON Schema) and the route it mirrors, by path, with how
// its arguments become that route's query string. OpenPanel's analytics tools keep their names and inputs;
// Quarry's own follow them. A tool whose route the routes table lacks is not offered (offeredTools).
import { dateInputs, filtersInput, foldFilters, routeParams, withDefaultWindow, type RouteQuery, type ToolArguments } from './tool-inputs'

export interface ToolSpec {
  name: string
  description: string
  /** The path of the route it mirrors, as the routes table writes it. */
  route: string
  /** Its arguments' schemas, beside `projectId` (which every tool takes). */
  inputs: Record<string, object>
  required?: readonly string[]
  /** The route's query string from the arguments (without `projectId`). */
  params(args: ToolArguments): RouteQuery
}

const INSIGHTS = '/insights/:projectId'
const text = (description: string) => ({ type: 'string', description })
const count = (description: string, minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum, description })
const names = (description: string) => ({ type: 'array', items: { type: 'string' }, description })

/** A tool whose arguments are its route's parameters by the same names, read over 30 days unless dated. */
const sameNames = (args: ToolArguments) => routeParams(args, { fixed: withDefaultWindow(args) })

/** The session attributes OpenPanel's event and session tools take as arguments, by the filter name each is. */
const ATTRIBUTES = {
  country: 'country',
  city: 'city',
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer',
  referrerName: 'referrer_name',
  referrerType: 'referrer_type',
}
const attributeInputs = {
  country: text('Filter by ISO 3166-1 alpha-2 country code (e.g. US, GB)'),
  city: text('Filter by city name'),
  device: text('Filter by device type (e.g. desktop, mobile, tablet)'),
  browser: text('Filter by browser name (e.g. Chrome, Firefox)'),
  os: text('Filter by OS name (e.g. Windows, macOS)'),
  referrer: text('Filter by referrer URL'),
  referrerName: text('Filter by referrer name (e.g. Google, Twitter)'),
  referrerType: text('Filter by referrer type (e.g. search, social, email)'),
}

/** OpenPanel's analytics tools (packages/mcp/src/tools/analytics at ed7bdddb), on the routes of the same questions. */
const OPENPANEL_TOOLS: ToolSpec[] = [
  {
    name: 'list_event_names',
    description:
      'Get the top 50 most common event names tracked in this project. Always call this before querying events if you are unsure of the exact event name.',
    route: `${INSIGHTS}/events/names`,
    inputs: {},
    params: () => ({}),
  },
  {
    name: 'list_event_properties',
    description:
      'List the property keys of events, a row per key and event name, optionally of one event name. Use this to discover what data is available before filtering (as properties.<key>) or breaking down.',
    route: `${INSIGHTS}/events/properties`,
    inputs: { eventName: text('Filter to a specific event name. Omit to list properties across all events.') },
    params: (args) => routeParams(args, { rename: { eventName: 'event' } }),
  },
  {
    name: 'get_event_property_values',
    description:
      'Get the distinct values of one event property (the 200 with most events), to see what values exist before filtering (e.g. what plans exist in "plan").',
    route: `${INSIGHTS}/events/property_values`,
    inputs: {
      eventName: text('The event name to look up property values for (e.g. "subscription_created")'),
      propertyKey: text('The property key to get values for (e.g. "plan", "status")'),
    },
    required: ['eventName', 'propertyKey'],
    params: (args) => routeParams(args, { rename: { eventName: 'event', propertyKey: 'key' } }),
  },
  {
    name: 'query_events',
    description:
      'Query raw analytics events with optional filters. Returns individual event records including path, device, country, referrer, and custom properties. Defaults to the last 30 days.',
    route: `${INSIGHTS}/events`,
    inputs: {
      ...dateInputs,
      eventNames: names('Filter by event names (e.g. ["screen_view", "session_start"])'),
      path: text('Filter by exact page path'),
      ...attributeInputs,
      profileId: text('Filter events for a specific user profile ID'),
      properties: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Filter by custom event properties (key-value pairs)',
      },
      limit: count('Maximum number of events to return (1-100, default 20)', 1, 100),
    },
    params: sameNames,
  },
  {
    name: 'query_sessions',
    description:
      'Query user sessions with optional filters (or a filter tree in `filters`). Each session is a single visit with duration, entry/exit pages, bounce status, and attribution data. Defaults to the last 30 days.',
    route: `${INSIGHTS}/sessions`,
    inputs: {
      ...dateInputs,
      ...attributeInputs,
      profileId: text('Filter sessions for a specific user profile ID'),
      limit: count('Maximum number of sessions to return (1-100, default 20)', 1, 100),
      ...filtersInput,
    },
    params: (args) => {
      const filters = foldFilters(args, ATTRIBUTES)
      return routeParams({ ...args, filters }, { drop: Object.keys(ATTRIBUTES), fixed: { limit: '20', ...withDefaultWindow(args) } })
    },
  },
  {
    name: 'find_profiles',
    description:
      'Search and filter user profiles by name, email, location, inactivity, session count, and whether they performed a specific event. Defaults to the 20 most recently created profiles.',
    route: `${INSIGHTS}/profiles`,
    inputs: {
      name: text('Partial match against first name or last name (e.g. "Carl")'),
      email: text('Partial email match'),
      country: text('Filter by ISO 3166-1 alpha-2 country code (e.g. US, SE)'),
      city: text('Filter by city name'),
      device: text('Filter by device type (desktop, mobile, tablet)'),
      browser: text('Filter by browser name'),
      inactiveDays: { type: 'integer', minimum: 1, description: 'Only profiles with no events in the last N days' },
      minSessions: { type: 'integer', minimum: 1, description: 'Only profiles with at least N sessions' },
      performedEvent: text('Only profiles that performed this event at least once (e.g. "purchase")'),
      sortOrder: { enum: ['asc', 'desc'], description: 'Sort direction for created_at (default: desc = newest first)' },
      limit: count('Maximum number of profiles to return (1-100, default 20)', 1, 100),
    },
    params: (args) => routeParams(args, {}),
  },
  {
    name: 'get_profile',
    description: 'Get a specific user profile by ID along with their most recent events.',
    route: `${INSIGHTS}/profiles/:profileId`,
    inputs: {
      profileId: text('The profile ID to look up'),
      eventLimit: count('Number of recent events to include (1-100, default 20)', 1, 100),
    },
    required: ['profileId'],
    params: (args) => routeParams(args, {}),
  },
  {
    name: 'get_profile_sessions',
    description: "Get a user profile's sessions, most recent first, with duration, entry/exit pages, device and referrer.",
    route: `${INSIGHTS}/profiles/:profileId/sessions`,
    inputs: {
      profileId: text('The profile ID to fetch sessions for'),
      limit: count('Maximum number of sessions to return (1-100, default 20)', 1, 100),
    },
    required: ['profileId'],
    params: (args) => routeParams(args, {}),
  },
  {
    name: 'get_profile_metrics',
    description:
      "Get a user's lifetime metrics: sessions, screen views, events, session durations, bounce rate, active days, conversion events, time between sessions and revenue.",
    route: `${INSIGHTS}/profiles/:profileId/metrics`,
    inputs: { profileId: text('The profile ID to get metrics for') },
    required: ['profileId'],
    params: (args) => routeParams(args, {}),
  },
  {
    name: 'list_group_types',
    description: 'List the group types of this project (e.g. "company", "team"). Call this before querying groups.',
    route: `${INSIGHTS}/groups/types`,
    inputs: {},
    params: () => ({}),
  },
  {
    name: 'find_groups',
    description: 'Search for groups (companies, teams, accounts) by name, ID, or type.',
    route: `${INSIGHTS}/groups`,
    inputs: {
      type: text('Filter by group type (e.g. "company"); list_group_types lists them'),
      search: text('Partial match against group name or ID'),
      limit: count('Maximum number of groups to return (default 20)', 1, 100),
    },
    params: (args) => routeParams(args, {}),
  },
  {
    name: 'get_group',
    description: 'Get a group by ID with its properties and the member profiles that belong to it.',
    route: `${INSIGHTS}/groups/:groupId`,
    inputs: {
      groupId: text('The group ID to look up'),
      memberLimit: count('Max number of member profiles to include (default 10)', 1, 50),
    },
    required: ['groupId'],
    params: (args) => routeParams(args, {}),
  },
  {
    name: 'get_analytics_overview',
    description:
      'Get key metrics for a date range: unique visitors, pageviews, sessions, bounce rate, average session duration and views per session, with a series by interval.',
    route: `${INSIGHTS}/overview`,
    inputs: { ...dateInputs, interval: { enum: ['hour', 'day', 'week', 'month'], description: 'Series interval (default: day)' } },
    params: sameNames,
  },
  {
    name: 'get_rolling_active_users',
    description: 'Get a time series of unique active users over a rolling window: days=1 for DAU, 7 for WAU, 30 for MAU.',
    route: `${INSIGHTS}/active_users`,
    inputs: { days: count('Rolling window in days. 1 = DAU, 7 = WAU, 30 = MAU.', 1, 90) },
    required: ['days'],
    params: (args) => routeParams(args, {}),
  },
  {
    name: 'get_weekly_retention_series',
    description: 'Get week-over-week user retention: for each week, the users active that week and how many returned the next.',
    route: `${INSIGHTS}/retention`,
    inputs: {},
    params: () => ({}),
  },
  {
    name: 'get_retention_cohort',
    description:
      'Get a weekly retention cohort table for the last 12 weeks: per first-seen week, its size and the users retained each following week.',
    route: `${INSIGHTS}/retention/cohort`,
    inputs: {},
    params: () => ({}),
  },
  {
    name: 'get_user_last_seen_distribution',
    description: 'Get how many users were last active N days ago, bucketed (0-7, 8-14, 15-30, 31-60, 60+ days): recency and churn.',
    route: `${INSIGHTS}/engagement`,
    inputs: {},
    params: () => ({}),
  },
  {
    name: 'get_top_pages',
    description: 'Get the most visited pages ranked by page views, with unique visitors and engagement. Defaults to the top 50.',
    route: `${INSIGHTS}/pages/top`,
    inputs: { ...dateInputs, limit: count('Max pages to return (default 50, max 500)', 1, 500) },
    params: sameNames,
  },
  {
    name: 'get_entry_exit_pages',
    description:
      'Get the most common entry pages (first page of a session) or exit pages (last page of a session), with exit rates. Defaults to the top 50.',
    route: `${INSIGHTS}/pages/entry_exit`,
    inputs: {
      ...dateInputs,
      mode: { enum: ['entry', 'exit'], description: '"entry" for pages visitors land on first, "exit" for pages they leave from' },
      limit: count('Max pages to return (default 50, max 500)', 1, 500),
      ...filtersInput,
    },
    required: ['mode'],
    params: (args) => routeParams(args, { fixed: { limit: '50', ...withDefaultWindow(args) } }),
  },
  {
    name: 'get_page_performance',
    description: 'Get per-page bounce rate, average duration, sessions and pageviews, sortable, with SEO signals.',
    route: `${INSIGHTS}/pages/performance`,
    inputs: {
      ...dateInputs,
      search: text('Filter pages by path or title (partial match)'),
      sortBy: { enum: ['sessions', 'pageviews', 'bounce_rate', 'avg_duration'], description: 'Sort by this metric (default: sessions)' },
      sortOrder: { enum: ['asc', 'desc'], description: 'Sort direction (default: desc)' },
      limit: count('Maximum number of pages to return (default 50)', 1, 500),
    },
    params: sameNames,
  },
  {
    name: 'get_top_referrers',
    description: 'Get the top traffic sources, by referrer name, type, URL or UTM parameter.',
    route: `${INSIGHTS}/traffic/referrers`,
    inputs: {
      ...dateInputs,
      breakdown: {
        enum: ['referrer_name', 'referrer_type', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign'],
        description: 'How to group referrers (default: referrer_name)',
      },
    },
    params: sameNames,
  },
  {
    name: 'get_country_breakdown',
    description: 'Get visitor counts broken down by country, region, or city.',
    route: `${INSIGHTS}/traffic/geo`,
    inputs: { ...dateInputs, breakdown: { enum: ['country', 'region', 'city'], description: 'Geographic level (default: country)' } },
    params: sameNames,
  },
  {
    name: 'get_device_breakdown',
    description: 'Get visitor counts broken down by device type, browser, or operating system.',
    route: `${INSIGHTS}/traffic/devices`,
    inputs: { ...dateInputs, breakdown: { enum: ['device', 'browser', 'os'], description: 'Device dimension (default: device)' } },
    params: sameNames,
  },
  {
    name: 'get_funnel',
    description:
      'Analyze a conversion funnel of 2 to 10 events in order: visitors (or sessions) reaching each step, conversion and drop-off. Defaults to the last 30 days.',
    route: `${INSIGHTS}/funnel`,
    inputs: {
      ...dateInputs,
      steps: { ...names('Ordered event names forming the funnel steps (minimum 2, maximum 10)'), minItems: 2, maxItems: 10 },
      windowHours: count('Hours within which all steps must occur (default: 24)', 1, 720),
      groupBy: {
        enum: ['session_id', 'profile_id'],
        description: '"session_id" counts within-session completions, "profile_id" cross-session ones (default: session_id)',
      },
      ...filtersInput,
    },
    required: ['steps'],
    params: sameNames,
  },
  {
    name: 'get_user_flow',
    description:
      'User navigation flows as a Sankey diagram: what happens after an event ("after"), what leads up to it ("before"), or the paths between two events ("between").',
    route: `${INSIGHTS}/user_flow`,
    inputs: {
      ...dateInputs,
      startEvent: text('The anchor event name ("after"/"before"), or the start ("between")'),
      endEvent: text('Required for "between" mode: the destination event name'),
      mode: { enum: ['after', 'before', 'between'], description: 'Which flow (default: after)' },
      steps: count('Number of steps to show in the flow (2-10, default 5)', 2, 10),
      exclude: names('Event names to exclude from the flow'),
      include: names('If set, only these event names appear in the flow'),
    },
    required: ['startEvent'],
    params: sameNames,
  },
]

/** A funnel step as the route takes one: an event name, or `{ name, filters }` with the step's own filters. */
const stepInput = {
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, filters: { type: 'array' } },
      additionalProperties: false,
    },
  ],
}

/** Quarry's questions OpenPanel has no tool for, with the inputs of their routes. */
const QUARRY_TOOLS: ToolSpec[] = [
  {
    name: 'get_funnel_with_step_filters',
    description:
      'A funnel whose steps carry their own filters ({ name, filters: [...] }, e.g. a purchase over 100), optionally broken down by one field (top breakdownLimit values). Defaults to the last 30 days.',
    route: `${INSIGHTS}/funnel`,
    inputs: {
      ...dateInputs,
      steps: { type: 'array', items: stepInput, minItems: 2, maxItems: 10, description: '2-10 steps: event names or { name, filters }' },
      windowHours: count('Hours within which all steps must occur (default: 24)', 1, 720),
      groupBy: { enum: ['session_id', 'profile_id'], description: 'Count sessions or visitors (default: session_id)' },
      breakdown: text('One event field, session attribute or properties.<key> to break the funnel down by'),
      breakdownLimit: count('Breakdown values kept, the largest first (default 10)', 1, 100),
      filters: { type: 'array', description: 'A flat array of filters ANDed into every step' },
    },
    required: ['steps'],
    params: sameNames,
  },
  {
    name: 'get_paths',
    description:
      'Where sessions go: the pages (or events) at each step of their sequences and the links between them, optionally from a start step, over the sessions a filter tree selects.',
    route: `${INSIGHTS}/paths`,
    inputs: {
      ...dateInputs,
      node: { enum: ['page', 'event'], description: 'page: the path of each page view; event: each event name (default: page)' },
      start: {
        anyOf: [{ type: 'string' }, stepInput.anyOf[1]],
        description: 'A step sequences begin at: an event name or { name, filters }',
      },
      steps: count('Steps followed (2-10, default 5)', 2, 10),
      limit: count('Nodes and links kept per step (default 10)', 1, 100),
      ...filtersInput,
    },
    params: sameNames,
  },
  {
    name: 'list_sessions',
    description:
      "The window's sessions, newest first, as keyset pages (pass meta.nextCursor as cursor), over the sessions a filter tree selects. Defaults to the last 30 days.",
    route: `${INSIGHTS}/sessions`,
    inputs: {
      ...dateInputs,
      limit: count('Sessions per page (1-1000, default 50)', 1, 1000),
      cursor: text("The previous page's meta.nextCursor"),
      ...filtersInput,
    },
    params: sameNames,
  },
  {
    name: 'get_chart',
    description:
      'Time series of up to 10 event series (counts, users, sessions, property sums and averages...) with formulas over them ({ type: "formula", formula: "B/A*100" }), breakdowns and the previous period.',
    route: '/export/charts',
    inputs: {
      ...dateInputs,
      series: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        items: { type: 'object' },
        description:
          'Series { name (event or "*"), segment, property, filters, displayName } and formulas { type: "formula", formula, displayName } (docs/api/charts.md)',
      },
      breakdowns: { type: 'array', items: { type: 'object' }, maxItems: 3, description: 'Up to 3 { name } to break every series down by' },
      breakdownLimit: count('Breakdown groups kept per series (default 10)', 1, 100),
      interval: { enum: ['minute', 'hour', 'day', 'week', 'month'], description: 'Bucket size (by the window by default)' },
      previous: { type: 'boolean', description: 'Also answer the previous period of the same length' },
    },
    required: ['series'],
    params: (args) => routeParams(args, {}),
  },
]

export const TOOLS: readonly ToolSpec[] = [...OPENPANEL_TOOLS, ...QUARRY_TOOLS]
