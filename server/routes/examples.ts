// The example requests of the routes: query strings each compiled for every route that accepts them. The
// startup check compiles them at every start, the SQL catalogue (docs/sql/) prints their statements.
import { PROPERTY_SEGMENTS, SEGMENTS, type Segment } from '../../queries/charts/chart-params'
import { INCLUDES, encodeCursor } from '../../queries/export/export-events'
import { encodeKeyset } from '../../queries/people/keyset'
import { schemaOf, type Route } from './routes'

/** Filters of every kind: a session attribute, event fields, a numeric property comparison. */
const FILTERS = JSON.stringify([
  { name: 'country', operator: 'is', value: ['DE', 'FR'] },
  { name: 'path', operator: 'startsWith', value: ['/blog'] },
  { name: 'name', operator: 'isNot', value: ['purchase'] },
  { name: 'properties.price', operator: 'gt', value: [10] },
])

/** Filters on the page alone, which a settled session's stored pages answer (its counted views, `page_matches`). */
const PAGE_FILTERS = JSON.stringify([{ name: 'path', operator: 'startsWith', value: ['/blog'] }])
/** A filter tree: session leaves and two distinct performed leaves (one twice), under and, or and not. */
const FILTER_TREE = JSON.stringify({
  or: [
    { and: [{ name: 'country', operator: 'is', value: ['DE'] }, { performed: { name: 'signup' } }] },
    { not: { performed: { name: 'purchase', filters: [{ name: 'properties.price', operator: 'gt', value: [10] }] } } },
    { and: [{ name: 'entry_path', operator: 'startsWith', value: ['/blog'] }, { performed: { name: 'signup' } }] },
  ],
})

/** Filters on event columns only, as funnel and retention steps take them. */
const EVENT_FILTERS = JSON.stringify([
  { name: 'country', operator: 'isNot', value: ['FR'] },
  { name: 'properties.price', operator: 'gte', value: [5] },
])

const SERIES_PER_CHART = 5
const seriesItem = (segment: Segment) => ({
  name: 'screen_view',
  segment,
  ...(PROPERTY_SEGMENTS.includes(segment) ? { property: 'properties.price' } : {}),
  filters: [{ name: 'path', operator: 'contains', value: ['blog'] }],
})
/** Every segment, a few per chart (a chart takes at most 10 series), with breakdowns and the previous period. */
const CHARTS = Array.from({ length: Math.ceil(SEGMENTS.length / SERIES_PER_CHART) }, (_, index) => ({
  series: JSON.stringify(SEGMENTS.slice(index * SERIES_PER_CHART, (index + 1) * SERIES_PER_CHART).map(seriesItem)),
  breakdowns: JSON.stringify([{ name: 'country' }, { name: 'properties.plan' }]),
  previous: 'true',
  interval: 'day',
}))

/**
 * Example query strings. Each one is compiled for every route that accepts all of its parameters and
 * requires no other; every route must be reached by at least one.
 */
export const EXAMPLE_QUERIES: Record<string, string>[] = [
  {},
  { range: '30d', filters: FILTERS },
  { range: 'today', interval: 'hour', filters: FILTERS },
  { range: '7d', limit: '5', filters: FILTERS },
  { mode: 'entry' },
  { mode: 'exit' },
  // Quarry's 7 days, which the demo's settled days answer from the session rollup.
  { mode: 'exit', range: '7d' },
  { mode: 'entry', range: '30d', filters: FILTERS },
  { mode: 'exit', range: '30d', limit: '5', filters: FILTERS },
  { range: '30d', filters: PAGE_FILTERS },
  { mode: 'exit', range: '30d', filters: PAGE_FILTERS },
  { range: '30d', limit: '5', filters: FILTER_TREE },
  { range: 'today', interval: 'hour', filters: JSON.stringify({ not: { performed: { name: 'signup' } } }) },
  ...CHARTS,
  { series: JSON.stringify([{ name: '*' }, { name: 'purchase', segment: 'user' }, { type: 'formula', formula: 'B/A*100' }]) },
  {
    includes: Object.keys(INCLUDES).join(','),
    event: 'screen_view,purchase',
    profileId: 'user_1',
    filters: FILTERS,
    cursor: encodeCursor({ createdAtMs: Date.UTC(2024, 2, 31), id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001', page: 2 }),
  },
  { includes: 'profile', page: '3', limit: '20' },
  {
    steps: JSON.stringify([{ name: 'screen_view', filters: [{ name: 'path', operator: 'is', value: ['/pricing'] }] }, 'signup', '*']),
    windowHours: '48',
    groupBy: 'profile_id',
    breakdown: 'properties.plan',
    filters: EVENT_FILTERS,
  },
  { steps: JSON.stringify(['screen_view', 'purchase']), breakdown: 'country', breakdownLimit: '3' },
  {
    steps: JSON.stringify([
      'screen_view',
      { name: 'add_to_cart', filters: [{ name: 'properties.price', operator: 'gt', value: [10] }] },
      'purchase',
    ]),
    windowHours: '2',
    filters: EVENT_FILTERS,
  },
  {
    startEvent: JSON.stringify({ name: 'signup', filters: [{ name: 'country', operator: 'is', value: ['DE'] }] }),
    returnEvent: 'purchase',
    period: 'month',
    periods: '3',
    criteria: 'on_or_after',
    filters: EVENT_FILTERS,
    // Quarry's cohort table on /retention, Quarry's table on /retention/cohort.
    detail: 'true',
  },
  // OpenPanel's weekly series (/retention) and cohort rows (/retention/cohort).
  { range: '12m', filters: EVENT_FILTERS },
  // OpenPanel's user flow.
  { startEvent: 'signup', steps: '4', limit: '3', range: '30d', filters: FILTER_TREE },
  // OpenPanel's user flow up to startEvent, and from it to endEvent, over some event names.
  { startEvent: 'signup', mode: 'before', steps: '3', exclude: 'add_to_cart' },
  { startEvent: 'signup', mode: 'between', endEvent: 'purchase', include: 'add_to_cart', range: '30d' },
  {
    node: 'event',
    start: JSON.stringify({ name: 'signup', filters: [{ name: 'path', operator: 'contains', value: ['pricing'] }] }),
    steps: '4',
    filters: FILTERS,
  },
  { event: 'purchase', search: 'PRO', startDate: '2024-03-01T10:30:00+05:30', endDate: '2024-03-31', timezone: 'Asia/Kolkata' },
  // Quarry's key list, ranked by events.
  { event: 'purchase', startDate: '2024-03-01T10:30:00+05:30', endDate: '2024-03-31', timezone: 'Asia/Kolkata', detail: 'true' },
  { key: 'plan', event: 'signup', search: 'pr', range: '30min', limit: '5', cursor: '2' },
  { format: 'csv', includes: Object.keys(INCLUDES).join(','), filters: FILTERS },
  { format: 'csv', includes: 'geo,device', start: '2024-03-01' },
  { format: 'ndjson', start: '2024-03-01', end: '2024-03-31' },
  // /table: two dimensions and five session metrics; every metric with a goal, filters and a page; a tree.
  { dimensions: 'country,exit_path', metrics: 'visitors,sessions,pageviews,bounce_rate,avg_session_duration' },
  {
    dimensions: 'device,entry_path,utm_source',
    metrics: 'events,revenue,conversion_rate,views_per_session',
    goal: JSON.stringify({ performed: { name: 'purchase', filters: [{ name: 'properties.price', operator: 'gt', value: [10] }] } }),
    orderBy: 'conversion_rate:asc',
    range: '30d',
    filters: FILTERS,
    limit: '5',
    cursor: '2',
  },
  {
    dimensions: 'region',
    metrics: 'revenue,conversion_rate',
    goal: JSON.stringify({ performed: { name: 'signup' } }),
    filters: FILTER_TREE,
  },
  // People: a profile and a group (of the golden shop, fixtures/golden/, which test/integration/explain.test.ts
  // asks them of), and every filter of the profile list.
  { profileId: 'user-anna' },
  { profileId: 'user-anna', eventLimit: '5' },
  { profileId: 'user-anna', limit: '5' },
  { groupId: 'acme', memberLimit: '5' },
  { type: 'company', search: 'ac', limit: '5', cursor: encodeKeyset({ ms: Date.UTC(2024, 2, 1), id: 'acme' }) },
  {
    name: 'ada love',
    email: 'example.com',
    country: 'DE',
    browser: 'Firefox',
    inactiveDays: '30',
    minSessions: '2',
    performedEvent: 'purchase',
    filters: JSON.stringify([
      { name: 'properties.plan', operator: 'is', value: ['pro', 'plus'] },
      { name: 'email', operator: 'doesNotContain', value: ['test'] },
    ]),
    sortOrder: 'asc',
    limit: '5',
    cursor: encodeKeyset({ ms: Date.UTC(2024, 2, 1), id: 'user_1' }),
  },
  // OpenPanel's analytics routes (queries/openpanel/).
  { interval: 'week', startDate: '2024-03-01', endDate: '2024-03-31' },
  { days: '30', range: '3m', timezone: 'Europe/Berlin' },
  { sortBy: 'bounce_rate', sortOrder: 'asc', search: 'blog', limit: '20' },
  { eventNames: 'purchase', path: '/checkout', referrerName: 'Google', properties: JSON.stringify({ plan: 'pro' }), limit: '5' },
]

/** Whether a route takes every parameter of a query string and requires no other. */
export function accepts(route: Route, query: Record<string, string>): boolean {
  const schema = schemaOf(route) as { properties?: Record<string, unknown>; required?: string[] }
  const known = Object.keys(schema.properties ?? {})
  return Object.keys(query).every((key) => known.includes(key)) && (schema.required ?? []).every((key) => key in query)
}

/** The example query strings a route accepts. */
export const examplesFor = (route: Route): Record<string, string>[] => EXAMPLE_QUERIES.filter((query) => accepts(route, query))
