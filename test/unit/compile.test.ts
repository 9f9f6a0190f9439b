// Exact SQL and params of representative compiled requests: what an analyst reviews is what runs.
import assert from 'node:assert/strict'
import { compileTemplate } from '../../queries/core/compiled'
import { parseFilters, sortFilters } from '../../queries/core/filters'
import { dimensions } from '../../queries/insights/dimensions'
import { live } from '../../queries/insights/live'
import { metrics } from '../../queries/insights/metrics'
import { pages } from '../../queries/insights/pages'
import { prepare, type Scope } from '../../queries/core/pipeline'
import { normalizedSql } from '../support/sql'

const scope: Scope = {
  project: { id: 'shop', name: 'Shop', timezone: 'Europe/Berlin' },
  now: new Date('2024-03-31T12:00:00Z'),
  sessionLookbackMs: 24 * 3_600_000,
}

/**
 * The window params of 2024-03-30..31 in Berlin: the window, its lookback read range (24 h), and its UTC
 * days, none of them settled (compiled without a settled check's rows): every day regrouped, from the
 * lookback before the first to the lookback after the last.
 */
const BERLIN_WEEKEND = {
  projectId: 'shop',
  start: '2024-03-29 23:00:00.000',
  end: '2024-03-31 22:00:00.000',
  readFrom: '2024-03-28 23:00:00.000',
  readTo: '2024-04-01 22:00:00.000',
  firstDay: '2024-03-29',
  lastDay: '2024-03-31',
  settledDays: [],
  settledCompactions: [],
  regroupFrom: '2024-03-28 00:00:00.000',
  regroupTo: '2024-04-02 00:00:00.000',
}

describe('compiled queries', () => {
  it('live: the last five minutes of one project, values bound', () => {
    const { compiled } = prepare(live, {}, scope)
    assert.equal(compiled.template, 'insights.live')
    assert.deepEqual(compiled.params, { projectId: 'shop', since: '2024-03-31 11:55:00.000', now: '2024-03-31 12:00:00.000' })
    assert.equal(
      normalizedSql(compiled.sql),
      `SELECT uniqExact(profile_id) AS visitors
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {since:DateTime64(3, 'UTC')}
  AND created_at <= {now:DateTime64(3, 'UTC')}`,
    )
  })

  it('breakdowns asked together: one statement, a grouping set and a member index each, the same params', () => {
    const byName = (name: string) => dimensions.find((resource) => resource.name === name)
    const [country, city, referrer] = ['country', 'city', 'referrer'].map(byName)
    assert.ok(country?.joins && city && referrer)
    const filters = JSON.stringify([{ name: 'country', operator: 'is', value: ['DE'] }])
    const { query, compiled: alone } = prepare(country, { startDate: '2024-03-30', endDate: '2024-03-31', filters }, scope)
    const joined = country.joins.compile(['country', 'city', 'referrer'].map((resource) => ({ resource, query })))
    assert.equal(city.joins, country.joins)
    assert.equal(referrer.joins, country.joins)
    assert.equal(joined.template, 'insights.dimension_sets')
    assert.deepEqual(joined.params, { ...BERLIN_WEEKEND, rowsToRead: 11, offset: 0, f0_v: ['DE'] })
    assert.deepEqual(joined.params, alone.params)
    const sql = normalizedSql(joined.sql)
    // GROUPING(country, city, referrer): 1 for a column the set leaves out, first column first.
    const grouping = 'GROUPING(s_country, s_city, s_referrer)'
    assert.equal(
      sql.slice(0, sql.indexOf('FROM')),
      `SELECT
  multiIf(${grouping} = 3, 0, ${grouping} = 1, 1, ${grouping} = 6, 2, 3) AS member,
  multiIf(member = 1, s_country, '') AS prefix_value,
  multiIf(member = 0, s_country, member = 1, s_city, member = 2, s_referrer, '') AS name_value,
  count() AS session_count,
  sum(all_views) AS view_count,
  countIf(all_views <= 1) AS bounced,
  sum(duration_ms) AS duration_total_ms
`,
    )
    assert.equal(
      sql.slice(sql.indexOf(') AS kept')),
      `) AS kept
GROUP BY GROUPING SETS ((s_country), (s_city, s_country), (s_referrer))
ORDER BY member ASC, session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64} BY member`,
    )
    // Each attribute is read once, from the settled sessions and from the regrouped ones.
    assert.match(sql, /visitor_key,\n  s_country,\n  s_city,\n  s_referrer\n/)
    assert.match(sql, /AS s_country,\n  argMin\(city, first_event_key\) AS s_city,\n  argMin\(referrer, first_event_key\) AS s_referrer\n/)
  })

  it('breakdowns without filters, on whole hours, read the settled days from the session rollup, alone and together', () => {
    const country = dimensions.find((resource) => resource.name === 'country')
    assert.ok(country?.joins)
    const compile = (raw: Record<string, string>) => prepare(country, { startDate: '2024-03-30', endDate: '2024-03-31', ...raw }, scope)
    const { query, compiled: alone } = compile({})
    assert.equal(alone.template, 'insights.dimension_rollup')
    assert.deepEqual(alone.params, { ...BERLIN_WEEKEND, rowsToRead: 11, offset: 0 })
    assert.match(
      alone.sql,
      /\(\n  SELECT\n  prefix AS prefix_value,[^]*FROM session_rollup\nWHERE project_id = \{projectId:String\}\n  AND dimension IN \('country'\)\n/,
    )
    assert.match(alone.sql, /''\s+AS prefix_value,\s+s_country AS name_value,\s+toUInt64\(1\) AS sessions/)
    const joined = country.joins.compile(['country', 'region'].map((resource) => ({ resource, query })))
    assert.equal(joined.template, 'insights.dimension_sets_rollup')
    assert.deepEqual(joined.params, alone.params)
    assert.match(joined.sql, /indexOf\(\['country', 'region'\], dimension\) - 1\) AS member,[^]*AND dimension IN \('country', 'region'\)\n/)
    assert.match(joined.sql, /ARRAY JOIN \[\(0, '', s_country\), \(1, s_country, s_region\)\] AS member_value/)
    // A filter, or a bound inside an hour (Kathmandu is UTC+05:45), reads the sessions.
    assert.equal(
      compile({ filters: JSON.stringify([{ name: 'country', operator: 'is', value: ['DE'] }]) }).compiled.template,
      'insights.dimension',
    )
    assert.equal(
      compile({ filters: JSON.stringify([{ name: 'path', operator: 'is', value: ['/'] }]) }).compiled.template,
      'insights.dimension',
    )
    assert.equal(compile({ timezone: 'Asia/Kathmandu' }).compiled.template, 'insights.dimension')
  })

  it('referrer, page 2 of 5, with a session filter and an event filter', () => {
    const filters = JSON.stringify([
      { name: 'country', operator: 'is', value: ['DE'] },
      { name: 'path', operator: 'startsWith', value: ['/blog'] },
    ])
    const referrer = dimensions.find((resource) => resource.name === 'referrer')
    assert.ok(referrer)
    const { compiled } = prepare(referrer, { startDate: '2024-03-30', endDate: '2024-03-31', limit: '5', cursor: '2', filters }, scope)
    assert.equal(compiled.template, 'insights.dimension')
    assert.deepEqual(compiled.params, {
      ...BERLIN_WEEKEND,
      rowsToRead: 6,
      offset: 5,
      f0_v: ['DE'],
      f1_v: ['/blog'],
    })
    assert.equal(
      normalizedSql(compiled.sql),
      `SELECT
  '' AS prefix_value,
  s_referrer AS name_value,
  count() AS session_count,
  sum(counted_views) AS view_count,
  countIf(all_views <= 1) AS bounced,
  sum(duration_ms) AS duration_total_ms
FROM
(
  WITH
  CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS settled_compactions,
  {regroupFrom:DateTime64(3, 'UTC')} AS regroup_from,
  {regroupTo:DateTime64(3, 'UTC')} AS regroup_to
SELECT *
FROM
(
  SELECT
    session_id,
    session_start,
    duration_ms,
    all_views,
    visitor_key,
  s_referrer,
  s_country,
    arraySum((matched, views) -> if(matched, views, 0), arrayMap((origin, path) -> (arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {f1_v:Array(String)})), page_origins, page_paths) AS page_matches, page_views) AS counted_views
  FROM sessions_settled
  WHERE project_id = {projectId:String}
    AND session_start >= {start:DateTime64(3, 'UTC')}
    AND session_start < {end:DateTime64(3, 'UTC')}
    AND day >= {firstDay:Date}
    AND day <= {lastDay:Date}
    AND compaction IN (SELECT arrayJoin(settled_compactions))
  AND (s_country IN {f0_v:Array(String)})
    AND has(page_matches, 1)
  UNION ALL
  SELECT *
  FROM
  (
    SELECT
  any(session_id) AS session_id,
  min(started_at) AS session_start,
  dateDiff('millisecond', min(started_at), max(ended_at)) AS duration_ms,
  sum(screen_views) AS all_views,
  argMin(profile_key, first_event_key) AS visitor_key,
  argMin(referrer, first_event_key) AS s_referrer,
  argMin(country, first_event_key) AS s_country
FROM sessions
WHERE project_id = {projectId:String}
  AND started_at >= {readFrom:DateTime64(3, 'UTC')}
  AND started_at < {readTo:DateTime64(3, 'UTC')}
  AND started_at >= {regroupFrom:DateTime64(3, 'UTC')}
  AND started_at < {regroupTo:DateTime64(3, 'UTC')}
GROUP BY session_key
HAVING session_start >= {start:DateTime64(3, 'UTC')}
  AND session_start < {end:DateTime64(3, 'UTC')}
  AND NOT has({settledDays:Array(Date)}, toDate(session_start))
  AND (s_country IN {f0_v:Array(String)})
  ) AS regrouped
  INNER JOIN
  (
SELECT session_id, countIf(name = 'screen_view' AND (arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {f1_v:Array(String)}))) AS counted_views
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND ((name = 'screen_view' AND (arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {f1_v:Array(String)}))) OR (arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {f1_v:Array(String)})))
  AND created_at >= regroup_from
  AND created_at < regroup_to
GROUP BY session_id
HAVING countIf((arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {f1_v:Array(String)}))) > 0
  ) AS matched USING (session_id)
)
) AS kept
GROUP BY prefix_value, name_value
ORDER BY session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}`,
    )
  })

  it('binds a property key as a value, never as an identifier', () => {
    const filters = JSON.stringify([{ name: "properties.x']) OR 1=1 --", operator: 'is', value: ["'; DROP TABLE events; --"] }])
    const { compiled } = prepare(dimensions[0], { range: '7d', filters }, scope)
    assert.equal(compiled.params.f0_key, "x']) OR 1=1 --")
    assert.deepEqual(compiled.params.f0_v, ["'; DROP TABLE events; --"])
    assert.ok(!compiled.sql.includes('DROP'), 'no value in the SQL text')
    assert.ok(compiled.sql.includes('properties[{f0_key:String}] IN {f0_v:Array(String)}'))
  })

  describe('filters decided once', () => {
    const filters = JSON.stringify([
      { name: 'country', operator: 'is', value: ['DE'] },
      { name: 'name', operator: 'is', value: ['purchase'] },
      { name: 'path', operator: 'startsWith', value: ['/blog'] },
    ])

    it('sorts each filter, compiled once, into session restrictions, event selections and view conditions', () => {
      const blog = '(arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {f2_v:Array(String)}))'
      assert.deepEqual(sortFilters(parseFilters(filters).filters), {
        sessionRestriction: '(s_country IN {f0_v:Array(String)})',
        eventSelection: `(name IN {f1_v:Array(String)}) AND ${blog}`,
        viewCondition: blog,
        viewConditionOnPage: true,
        nameFiltered: true,
        sessionAttributes: ['country'],
        restrictionReadsEvents: false,
        performedSessions: null,
        params: { f0_v: ['DE'], f1_v: ['purchase'], f2_v: ['/blog'] },
      })
    })

    it('compiles contains to one search of the lowered text, and with an empty value to a constant', () => {
      const selection = (operator: string, value: string[]) =>
        sortFilters(parseFilters(JSON.stringify([{ name: 'path', operator, value }])).filters).eventSelection
      assert.equal(
        selection('contains', ['Blog', 'news']),
        '(multiSearchAny(lowerUTF8(path), arrayMap(v -> lowerUTF8(v), {f0_v:Array(String)})))',
      )
      assert.equal(selection('contains', ['Blog', '']), "(has({f0_v:Array(String)}, ''))")
      assert.equal(selection('doesNotContain', ['']), "(NOT has({f0_v:Array(String)}, ''))")
    })

    it('tells a view condition that reads the page only from one that reads each view', () => {
      const onPage = (list: object[]) => sortFilters(parseFilters(JSON.stringify(list)).filters).viewConditionOnPage
      assert.equal(
        onPage([
          { name: 'origin', operator: 'is', value: ['https://a.example'] },
          { name: 'entry_path', operator: 'is', value: ['/'] },
        ]),
        true,
      )
      assert.equal(
        onPage([
          { name: 'path', operator: 'is', value: ['/'] },
          { name: 'title', operator: 'contains', value: ['Home'] },
        ]),
        false,
      )
      assert.equal(onPage([{ name: 'properties.plan', operator: 'is', value: ['pro'] }]), false)
    })

    it('pages looks up sessions with a matching event only under a name filter: else each counted view is one', () => {
      const lookUps = (list: object[]) => {
        const { compiled } = prepare(pages, { startDate: '2024-03-30', endDate: '2024-03-31', filters: JSON.stringify(list) }, scope)
        return compiled.sql.split('SELECT DISTINCT session_id').length - 1
      }
      assert.equal(
        lookUps([
          { name: 'path', operator: 'contains', value: ['a'] },
          { name: 'country', operator: 'is', value: ['DE'] },
        ]),
        0,
      )
      assert.equal(
        lookUps([
          { name: 'path', operator: 'contains', value: ['a'] },
          { name: 'name', operator: 'is', value: ['purchase'] },
        ]),
        2,
      )
    })

    it('pages orders by a key from a closed table, nulls last, then origin and path, and binds the search', () => {
      const tail = (raw: Record<string, string>) => {
        const { sql, params } = prepare(pages, { startDate: '2024-03-30', endDate: '2024-03-31', ...raw }, scope).compiled
        return { sql: sql.slice(sql.indexOf('LEFT JOIN entries')), search: params.search }
      }
      const join = 'LEFT JOIN entries ON page_rows.origin = entries.entry_origin AND page_rows.path = entries.entry_path'
      const limit = 'LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}'
      assert.deepEqual(tail({}), { sql: `${join}\nORDER BY session_count DESC, origin ASC, path ASC\n${limit}`, search: undefined })
      assert.deepEqual(tail({ sortBy: 'pageviews', sortOrder: 'asc', search: '' }), {
        sql: `${join}\nORDER BY view_count ASC, origin ASC, path ASC\n${limit}`,
        search: undefined,
      })
      assert.deepEqual(tail({ sortBy: 'bounce_rate', sortOrder: 'asc', search: "Ü'); DROP" }), {
        sql: `${join}
WHERE position(lowerUTF8(path), lowerUTF8({search:String})) > 0 OR position(lowerUTF8(latest_title), lowerUTF8({search:String})) > 0
ORDER BY if(entered_all = 0, NULL, intDivOrZero(20000 * entered_bounced_all + entered_all, 2 * entered_all)) ASC NULLS LAST, origin ASC, path ASC
${limit}`,
        search: "Ü'); DROP",
      })
      assert.match(
        tail({ sortBy: 'avg_duration' }).sql,
        /ORDER BY if\(with_next = 0, NULL, intDivOrZero\(200 \* gap_total_ms \+ 1000 \* with_next, 2000 \* with_next\)\) DESC NULLS LAST, origin ASC, path ASC/,
      )
    })

    it("pages counts entries under page-only filters by the entry page itself, without the sessions' pages or events", () => {
      const entries = (list: object[]) => {
        const { sql } = prepare(pages, { startDate: '2024-03-30', endDate: '2024-03-31', filters: JSON.stringify(list) }, scope).compiled
        return sql.slice(sql.indexOf('entries AS'), sql.indexOf('ordered_views AS'))
      }
      const onPage = entries([
        { name: 'path', operator: 'contains', value: ['a'] },
        { name: 'country', operator: 'is', value: ['DE'] },
      ])
      assert.match(onPage, /WHERE \(multiSearchAny\(lowerUTF8\(path\)/)
      assert.match(onPage, /s_country/)
      assert.doesNotMatch(onPage, /page_matches|FROM events/)
      const byProperty = entries([{ name: 'properties.plan', operator: 'is', value: ['pro'] }])
      assert.match(byProperty, /FROM events/)
      assert.match(byProperty, /WHERE 1\n/)
    })

    it('metrics sums revenue by the hour only without filters and with every bound on a whole hour', () => {
      const hourly = (raw: Record<string, string>) => prepare(metrics, raw, scope).compiled.sql.includes('toStartOfHour(created_at) AS at')
      assert.equal(hourly({ startDate: '2024-03-01', endDate: '2024-03-31', interval: 'day' }), true)
      assert.equal(hourly({ startDate: '2024-03-01', endDate: '2024-03-31', interval: 'week' }), true)
      assert.equal(hourly({ startDate: '2024-03-01', endDate: '2024-03-31', filters }), false)
      assert.equal(hourly({ startDate: '2024-03-01', endDate: '2024-03-31', timezone: 'Asia/Kathmandu' }), false)
      assert.equal(hourly({ startDate: '2024-03-01T10:30:00Z', endDate: '2024-03-01T12:00:00Z', interval: 'minute' }), false)
    })

    it('metrics binds each filter once, though its conditions appear in several subqueries', () => {
      const { compiled } = prepare(metrics, { startDate: '2024-03-30', endDate: '2024-03-31', filters }, scope)
      assert.deepEqual(compiled.params, {
        ...BERLIN_WEEKEND,
        tz: 'Europe/Berlin',
        f0_v: ['DE'],
        f1_v: ['purchase'],
        f2_v: ['/blog'],
      })
      // The session restriction restricts the window's sessions (settled and regrouped) and the revenue events' sessions.
      assert.equal(compiled.sql.split('(s_country IN {f0_v:Array(String)})').length - 1, 3)
    })

    it('refuses a param bound twice, even with an equal value', () => {
      assert.throws(
        () =>
          compileTemplate(
            'insights/dimension.sql',
            { projectId: 'p', rowsToRead: 1, offset: 0 },
            { prefix: { sql: "''", params: { offset: 0 } } },
          ),
        /Fragment param offset collides in insights.dimension/,
      )
    })
  })
})
