// The kinds of API client: the CLI creates them (admin/control.ts), the gateway authenticates them (http/directory.ts).
export const CLIENT_TYPES = ['read', 'write', 'root'] as const
export type ClientType = (typeof CLIENT_TYPES)[number]
