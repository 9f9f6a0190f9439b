// The group routes as OpenPanel answers them: `/groups/types` (`{ types }`), `/groups` (a bare array of
// groups, newest created first, `type` and `search`, `limit` a page; the next page's cursor in `Link`) and
// `/groups/:groupId` (`{ group, member_count, members }`; an unknown or deleted group is a 404).
import { compileTemplate } from '../core/compiled'
import { type Issue, invalid, QueryError } from '../core/errors'
import { planSteps, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { assertValid, compileSchema, schemaIssues } from '../core/validate'
import { cursorProperty, decodeKeyset, KEYSET_LAST, type Keyset, keysetPage } from './keyset'

interface ProjectQuery {
  projectId: string
}

const noParams = { type: 'object', additionalProperties: false, properties: {} }
const validateNoParams = compileSchema(noParams)

export const groupTypes: Resource<ProjectQuery, ProjectQuery, Rows['people/group-types.sql']> = {
  name: 'group types',
  schema: noParams,
  parse(raw, scope) {
    assertValid(validateNoParams, raw)
    return { projectId: scope.project.id }
  },
  plan: planSteps((query: ProjectQuery) => query),
  compile(query) {
    return compileTemplate('people/group-types.sql', { projectId: query.projectId })
  },
  shape(rows) {
    return { body: { types: rows.map((row) => row.type) } }
  },
}

const groupsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { type: 'string', maxLength: 200, description: 'Only groups of this type' },
    search: { type: 'string', maxLength: 200, description: 'A case-insensitive part of the name or id' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    cursor: cursorProperty,
  },
}
const validateGroups = compileSchema(groupsSchema, { coerce: true })

export interface GroupsQuery extends ProjectQuery {
  type: string
  search: string
  limit: number
  after: Keyset
}

export const groups: Resource<GroupsQuery, GroupsQuery, Rows['people/groups.sql']> = {
  name: 'groups',
  schema: groupsSchema,
  parse(raw, scope) {
    const issues: Issue[] = schemaIssues(validateGroups, raw)
    const after = typeof raw.cursor === 'string' ? decodeKeyset(raw.cursor, issues) : undefined
    if (issues.length) throw invalid(issues)
    return {
      projectId: scope.project.id,
      type: typeof raw.type === 'string' ? raw.type : '',
      search: typeof raw.search === 'string' ? raw.search : '',
      limit: Number(raw.limit),
      after: after ?? KEYSET_LAST,
    }
  },
  plan: planSteps((query: GroupsQuery) => query),
  compile(query) {
    return compileTemplate('people/groups.sql', {
      projectId: query.projectId,
      type: query.type,
      search: query.search,
      afterMs: query.after.ms,
      afterId: query.after.id,
      rows: query.limit + 1,
    })
  },
  shape(rows, query) {
    const { page, nextCursor } = keysetPage(rows, query.limit, (row) => ({ ms: Number(row.created_ms), id: row.id }))
    return {
      body: page.map(({ created_ms: _keyset, ...group }) => group),
      hasMore: nextCursor !== undefined,
      ...(nextCursor === undefined ? {} : { next: { cursor: nextCursor } }),
    }
  },
}

const groupSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['groupId'],
  properties: {
    groupId: { type: 'string', minLength: 1, maxLength: 200, description: "The group's id" },
    memberLimit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many members, newest created first' },
  },
}
const validateGroup = compileSchema(groupSchema, { coerce: true })

export interface GroupQuery extends ProjectQuery {
  groupId: string
  memberLimit: number
}

export const group: Resource<GroupQuery, GroupQuery, Rows['people/group.sql']> = {
  name: 'group',
  schema: groupSchema,
  parse(raw, scope) {
    const params = assertValid(validateGroup, raw) as { groupId: string; memberLimit: number }
    return { projectId: scope.project.id, groupId: params.groupId, memberLimit: params.memberLimit }
  },
  plan: planSteps((query: GroupQuery) => query),
  compile(query) {
    return compileTemplate('people/group.sql', { projectId: query.projectId, groupId: query.groupId })
  },
  alongside(query) {
    return { members: compileTemplate('people/group-members.sql', { ...query }) }
  },
  shape(rows, query, others) {
    const [found] = rows
    if (!found) throw new QueryError('not_found', `Group not found: ${query.groupId}`)
    const members = (others?.members ?? []) as Rows['people/group-members.sql'][]
    return {
      body: {
        group: found,
        member_count: Number(members[0]?.member_count ?? 0),
        members: members.map(({ member_count: _count, ...member }) => ({ ...member, isExternal: Boolean(member.isExternal) })),
      },
    }
  },
}
