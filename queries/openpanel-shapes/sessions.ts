// `/sessions` in OpenPanel's shape (`querySessionsCore`, packages/db/src/services/session.service.ts at
// ed7bdddb): a bare array of sessions named as OpenPanel's session rows name them, its keyset cursor in the
// `Link` header. `detail=true` answers Quarry's `{ meta, data }` page of the same sessions.
import { asksDetail, briefUnlessDetailed } from '../core/detail'
import { withOpenPanelWindow } from '../openpanel/adapt'
import { sessionsList } from '../insights/sessions-list'

/** A session of Quarry's page (`data`), as the sessions route's detailed answer gives it. */
interface ListedSession {
  id: string
  profileId: string
  startedAt: string
  endedAt: string
  duration: number
  screenViews: number
  events: number
  bounce: boolean
  entryOrigin: string
  entryPath: string
  exitOrigin: string | null
  exitPath: string | null
  referrer: string
  referrerName: string
  referrerType: string
  utmSource: string
  utmMedium: string
  utmCampaign: string
  utmTerm: string
  utmContent: string
  country: string
  region: string
  city: string
  device: string
  browser: string
  os: string
}

/** A session under OpenPanel's names; `duration` in milliseconds, as OpenPanel stores it. */
export function openPanelSession(session: ListedSession) {
  return {
    id: session.id,
    profile_id: session.profileId,
    event_count: session.events,
    screen_view_count: session.screenViews,
    entry_origin: session.entryOrigin,
    entry_path: session.entryPath,
    exit_origin: session.exitOrigin,
    exit_path: session.exitPath,
    created_at: session.startedAt,
    ended_at: session.endedAt,
    duration: Math.round(session.duration * 1000),
    is_bounce: session.bounce,
    referrer: session.referrer,
    referrer_name: session.referrerName,
    referrer_type: session.referrerType,
    utm_source: session.utmSource,
    utm_medium: session.utmMedium,
    utm_campaign: session.utmCampaign,
    utm_term: session.utmTerm,
    utm_content: session.utmContent,
    country: session.country,
    region: session.region,
    city: session.city,
    device: session.device,
    browser: session.browser,
    os: session.os,
  }
}

const briefOrDetailed = briefUnlessDetailed(sessionsList, (answer) => ({
  ...answer,
  body: (answer.body as { data: ListedSession[] }).data.map(openPanelSession),
}))

/**
 * OpenPanel's sessions, or Quarry's page with `detail=true`. Asked in OpenPanel's shape with no dates, the window
 * is OpenPanel's (`querySessionsCore` reads `resolveDateRange`: the last 30 days); Quarry's page keeps its own.
 */
export const openPanelSessions: typeof briefOrDetailed = {
  ...briefOrDetailed,
  parse: (raw, scope) => briefOrDetailed.parse(asksDetail(raw) ? raw : withOpenPanelWindow(raw, scope), scope),
}
