// Written by `npm run rows:types` (server/admin/row-types.ts) from the column lists of the templates'
// `-- @returns` headers: change the SQL, then run it again; test/unit/row-types.test.ts fails while this file
// is stale, and test/integration/row-columns.test.ts checks the lists against what the engine describes.
// A row is typed as the engine's JSON writes it: Int64 and wider as numbers in a route's rows (the serving
// runner pins output_format_json_quote_64bit_integers to 0), as numbers or strings in admin rows; dates and
// times as text; LowCardinality as its type; Nullable adding null; Array as an array; Map as an object. The
// export's CSV statements are written as TabSeparatedRaw and read by their own parser: their entries name the columns.

/** The row of each template that lists its columns, by its file under sql/. */
export interface Rows {
  /** admin.compact-count */
  'admin/compact-count.sql': {
    readonly project_id: string
    readonly partial_rows: number | string
  }
  /** admin.compact-lease-state */
  'admin/compact-lease-state.sql': {
    readonly generation: number | string
    readonly holder: string
    readonly live: number
  }
  /** admin.compact-lease-winner */
  'admin/compact-lease-winner.sql': {
    readonly holder: string
  }
  /** admin.compact-masked */
  'admin/compact-masked.sql': {
    readonly partition_id: string
  }
  /** admin.compact-mutating */
  'admin/compact-mutating.sql': {
    readonly pending: number | string
  }
  /** admin.compact-stage-check */
  'admin/compact-stage-check.sql': {
    readonly rows: number | string
    readonly foreign_rows: number | string
  }
  /** admin.compact-stage-rows */
  'admin/compact-stage-rows.sql': {
    readonly rows: number | string
  }
  /** admin.compact-stale-days */
  'admin/compact-stale-days.sql': {
    readonly day: string
  }
  /** admin.compact-superseded */
  'admin/compact-superseded.sql': {
    readonly day: string
    readonly compaction: string
  }
  /** admin.export_groups */
  'admin/export-groups.sql': {
    readonly id: string
    readonly type: string
    readonly name: string
    readonly properties: Readonly<Record<string, string>>
    readonly created_at: string
    readonly version: number | string
    readonly deleted: number
  }
  /** admin.export_profiles */
  'admin/export-profiles.sql': {
    readonly id: string
    readonly first_name: string
    readonly last_name: string
    readonly email: string
    readonly avatar: string
    readonly properties: Readonly<Record<string, string>>
    readonly is_external: boolean
    readonly groups: ReadonlyArray<string>
    readonly created_at: string
    readonly last_seen_at: string
  }
  /** admin.import-count */
  'admin/import-count.sql': {
    readonly staged: number | string | null
    readonly new_events: number | string | null
  }
  /** admin.import-leftovers */
  'admin/import-leftovers.sql': {
    readonly name: string
  }
  /** admin.import_people_count */
  'admin/import-people-count.sql': {
    readonly staged: number | string | null
    readonly new_rows: number | string | null
  }
  /** admin.migrations-applied */
  'admin/migrations-applied.sql': {
    readonly name: string
  }
  /** admin.migrations-tracked */
  'admin/migrations-tracked.sql': {
    readonly tracked: number
  }
  /** behaviour.funnel_entries */
  'behaviour/funnel-entries.sql': {
    readonly value: string
    readonly reached: ReadonlyArray<number>
    readonly total: ReadonlyArray<number>
  }
  /** behaviour.funnel_window */
  'behaviour/funnel-window.sql': {
    readonly value: string
    readonly reached: ReadonlyArray<number>
    readonly total: ReadonlyArray<number>
  }
  /** behaviour.funnel */
  'behaviour/funnel.sql': {
    readonly value: string
    readonly reached: ReadonlyArray<number>
    readonly total: ReadonlyArray<number>
  }
  /** behaviour.paths */
  'behaviour/paths.sql': {
    readonly kind: string
    readonly step: number
    readonly source: string
    readonly target: string
    readonly sessions: number
    readonly exits: number
    readonly total: number
  }
  /** behaviour.retention_weekly */
  'behaviour/retention-weekly.sql': {
    readonly week_start: number
    readonly active_users: number
    readonly retained_users: number
  }
  /** behaviour.retention */
  'behaviour/retention.sql': {
    readonly cohort: number
    readonly size: number
    readonly returned: ReadonlyArray<number>
  }
  /** control.api_clients */
  'control/api-clients.sql': {
    readonly id: string
    readonly name: string
    readonly type: 'read' | 'write' | 'root'
    readonly project_id: string
    readonly secret_hash: string
    readonly revoked: number
  }
  /** control.client-find */
  'control/client-find.sql': {
    readonly id: string
    readonly revoked: number
  }
  /** control.client-list */
  'control/client-list.sql': {
    readonly id: string
    readonly name: string
    readonly type: 'read' | 'write' | 'root'
    readonly project_id: string
    readonly created_at: string
    readonly revoked: number
  }
  /** control.data-version */
  'control/data-version.sql': {
    readonly parts: string
    readonly mutating: number | string | null
  }
  /** control.project-find */
  'control/project-find.sql': {
    readonly id: string
    readonly name: string
    readonly timezone: string
    readonly created_at: string
  }
  /** control.project-list */
  'control/project-list.sql': {
    readonly id: string
    readonly name: string
    readonly timezone: string
    readonly created_at: string
  }
  /** control.projects */
  'control/projects.sql': {
    readonly id: string
    readonly name: string
    readonly timezone: string
  }
  /** export.chart */
  'export/chart.sql': {
    readonly item: number
    readonly rank: number
    readonly labels: ReadonlyArray<string>
    readonly period: string
    readonly bucket: number
    readonly value: number
  }
  /** export.count */
  'export/count.sql': {
    readonly total: number
  }
  /** export.events-csv-lines */
  'export/events-csv-lines.sql': {
    readonly line: string
  }
  /** export.events-csv */
  'export/events-csv.sql': {
    readonly rows: number
    readonly lastAtMs: number
    readonly lastId: string
    readonly text: string
  }
  /** export.events */
  'export/events.sql': {
    readonly id: string
    readonly name: string
    readonly deviceId: string
    readonly profileId: string
    readonly sessionId: string
    readonly projectId: string
    readonly createdAt: string
    readonly path: string
    readonly duration: number
    readonly city: string
    readonly country: string
    readonly os: string
    readonly browser: string
    /** The columns the @includes marker adds. */
    readonly [column: string]: unknown
  }
  /** export.profiles */
  'export/profiles.sql': {
    readonly id: string
    readonly firstName: string
    readonly lastName: string
    readonly email: string
    readonly avatar: string
    readonly properties: Readonly<Record<string, string>>
    readonly createdAt: string
    readonly lastSeenAt: string
  }
  /** insights.dimension_rollup */
  'insights/dimension-rollup.sql': {
    readonly prefix_value: string
    readonly name_value: string
    readonly session_count: number
    readonly view_count: number
    readonly bounced: number
    readonly duration_total_ms: number
  }
  /** insights.dimension_sets_rollup: the row of insights/dimension-rollup.sql and its own */
  'insights/dimension-sets-rollup.sql': Rows['insights/dimension-rollup.sql'] & {
    readonly member: number
  }
  /** insights.dimension_sets: the row of insights/dimension-rollup.sql and its own */
  'insights/dimension-sets.sql': Rows['insights/dimension-rollup.sql'] & {
    readonly member: number
  }
  /** insights.dimension: the row of insights/dimension-rollup.sql */
  'insights/dimension.sql': Rows['insights/dimension-rollup.sql']
  /** insights.events_names */
  'insights/events-names.sql': {
    readonly name: string
    readonly event_count: number
    readonly last_seen_ms: number
  }
  /** insights.events_properties */
  'insights/events-properties.sql': {
    readonly key: string
    readonly event_count: number
  }
  /** insights.events_property_pairs */
  'insights/events-property-pairs.sql': {
    readonly key: string
    readonly name: string
    readonly event_count: number
  }
  /** insights.events_property_values */
  'insights/events-property-values.sql': {
    readonly value: string
    readonly event_count: number
  }
  /** insights.exit_pages_rollup */
  'insights/exit-pages-rollup.sql': {
    readonly page_origin: string
    readonly page_path: string
    readonly session_count: number
    readonly bounced: number
    readonly duration_total_ms: number
    readonly view_count: number
  }
  /** insights.exit_pages: the row of insights/exit-pages-rollup.sql */
  'insights/exit-pages.sql': Rows['insights/exit-pages-rollup.sql']
  /** insights.live */
  'insights/live.sql': {
    readonly visitors: number
  }
  /** insights.metrics */
  'insights/metrics.sql': {
    readonly part: string
    readonly is_total: number
    readonly bucket: number
    readonly session_count: number
    readonly bounced: number
    readonly duration_total_ms: number
    readonly view_count: number
    readonly visitor_count: number
    readonly revenue_total: number
  }
  /** insights.pages */
  'insights/pages.sql': {
    readonly origin: string
    readonly path: string
    readonly latest_title: string
    readonly session_count: number
    readonly view_count: number
    readonly entered: number
    readonly entered_bounced: number
    readonly with_next: number
    readonly gap_total_ms: number
  }
  /** insights.sessions_list */
  'insights/sessions-list.sql': {
    readonly id: string
    readonly profileId: string
    readonly startedAt: string
    readonly endedAt: string
    readonly start_ms: number
    readonly duration_ms: number
    readonly screen_views: number
    readonly event_total: number
    readonly entryOrigin: string
    readonly entryPath: string
    readonly exitOrigin: string
    readonly exitPath: string
    readonly referrer: string
    readonly referrerName: string
    readonly referrerType: string
    readonly utmSource: string
    readonly utmMedium: string
    readonly utmCampaign: string
    readonly utmTerm: string
    readonly utmContent: string
    readonly country: string
    readonly region: string
    readonly city: string
    readonly device: string
    readonly browser: string
    readonly os: string
  }
  /** insights.table */
  'insights/table.sql': {
    readonly dimension_1: string
    readonly dimension_2: string
    readonly dimension_3: string
    readonly session_count: number
    readonly view_count: number
    readonly bounced: number
    readonly duration_total_ms: number
    readonly visitor_count: number
    readonly event_count: number
    readonly revenue_total: number
    readonly converted_visitors: number
  }
  /** openpanel.active-users-long */
  'openpanel/active-users-long.sql': {
    readonly day: string
    readonly users: number | string
  }
  /** openpanel.active-users */
  'openpanel/active-users.sql': {
    readonly day: string
    readonly users: number | string
  }
  /** openpanel.engagement */
  'openpanel/engagement.sql': {
    readonly days: number | string
    readonly users: number | string
  }
  /** openpanel.page-count */
  'openpanel/page-count.sql': {
    readonly total_pages: number | string
  }
  /** people.group_members */
  'people/group-members.sql': {
    readonly id: string
    readonly email: string
    readonly avatar: string
    readonly firstName: string
    readonly lastName: string
    readonly createdAt: string
    readonly lastSeenAt: string
    readonly isExternal: boolean
    readonly projectId: string
    readonly groups: ReadonlyArray<string>
    readonly properties: Readonly<Record<string, string>>
    readonly member_count: number | string
  }
  /** people.group_types */
  'people/group-types.sql': {
    readonly type: string
  }
  /** people.group */
  'people/group.sql': {
    readonly id: string
    readonly projectId: string
    readonly type: string
    readonly name: string
    readonly properties: Readonly<Record<string, string>>
    readonly createdAt: string
    readonly updatedAt: string
  }
  /** people.groups: the row of people/group.sql and its own */
  'people/groups.sql': Rows['people/group.sql'] & {
    readonly created_ms: number | string
  }
  /** people.profile_events */
  'people/profile-events.sql': {
    readonly id: string
    readonly name: string
    readonly device_id: string
    readonly profile_id: string
    readonly session_id: string
    readonly project_id: string
    readonly created_at: string
    readonly path: string
    readonly origin: string
    readonly title: string
    readonly referrer: string
    readonly referrer_name: string
    readonly referrer_type: string
    readonly utm_source: string
    readonly utm_medium: string
    readonly utm_campaign: string
    readonly utm_term: string
    readonly utm_content: string
    readonly country: string
    readonly region: string
    readonly city: string
    readonly latitude: number | null
    readonly longitude: number | null
    readonly device: string
    readonly brand: string
    readonly model: string
    readonly browser: string
    readonly browser_version: string
    readonly os: string
    readonly os_version: string
    readonly duration: number
    readonly revenue: number | string
    readonly groups: ReadonlyArray<string>
    readonly properties: Readonly<Record<string, string>>
    readonly sdk_name: string
    readonly sdk_version: string
  }
  /** people.profile_metrics */
  'people/profile-metrics.sql': {
    readonly firstSeen: string | null
    readonly lastSeen: string | null
    readonly sessions: number | string
    readonly screenViews: number | string
    readonly totalEvents: number | string
    readonly conversionEvents: number | string
    readonly uniqueDaysActive: number | string
    readonly avgSessionDurationMin: number
    readonly p90SessionDurationMin: number
    readonly avgEventsPerSession: number | null
    readonly avgTimeBetweenSessionsSec: number
    readonly bounceRate: number
    readonly revenue: number | string
  }
  /** people.profile_sessions */
  'people/profile-sessions.sql': {
    readonly id: string
    readonly profile_id: string
    readonly event_count: number | string
    readonly screen_view_count: number | string
    readonly entry_path: string
    readonly entry_origin: string
    readonly exit_path: string
    readonly exit_origin: string
    readonly created_at: string
    readonly ended_at: string
    readonly referrer: string
    readonly referrer_name: string
    readonly referrer_type: string
    readonly os: string
    readonly os_version: string
    readonly browser: string
    readonly browser_version: string
    readonly device: string
    readonly brand: string
    readonly model: string
    readonly country: string
    readonly region: string
    readonly city: string
    readonly is_bounce: boolean
    readonly project_id: string
    readonly device_id: string
    readonly duration: number | string
    readonly utm_medium: string
    readonly utm_source: string
    readonly utm_campaign: string
    readonly utm_content: string
    readonly utm_term: string
    readonly revenue: number | string
    readonly start_ms: number | string
  }
  /** people.profile */
  'people/profile.sql': {
    readonly id: string
    readonly first_name: string
    readonly last_name: string
    readonly email: string
    readonly avatar: string
    readonly properties: Readonly<Record<string, string>>
    readonly project_id: string
    readonly is_external: boolean
    readonly created_at: string
    readonly last_seen_at: string
    readonly groups: ReadonlyArray<string>
  }
  /** people.profiles: the row of people/profile.sql and its own */
  'people/profiles.sql': Rows['people/profile.sql'] & {
    readonly created_ms: number | string
  }
  /** insights.settled_days */
  'sessions/settled-days.sql': {
    readonly day: string
    readonly compaction: string
  }
}
