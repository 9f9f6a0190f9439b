// POST /mcp: the Streamable HTTP transport of the MCP tools, stateless (each request builds its server and
// transport, answers in JSON and ends them), behind the same authentication as the REST routes. GET and DELETE
// serve sessions and their notification streams, which a stateless server has none of: 405.
import express, { type RequestHandler } from 'express'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createMcpServer, offeredTools, type McpServerOptions } from './mcp-server'
import type { Route } from '../routes/routes'

export const MCP_PATH = '/mcp'
/** The largest JSON-RPC body a request may send (express.json answers 413 past it). */
export const MAX_MCP_BYTES = 64 * 1024

export type McpOptions = Omit<McpServerOptions, 'tools'> & { routes: Route[] }

/** Whether a JSON-RPC body holds a request other than a tool call (initialize, tools/list, ping), which notifications are not. */
function asksBesidesTools(body: unknown): boolean {
  const messages = [body].flat() as ({ method?: unknown; id?: unknown } | null)[]
  return messages.some((message) => typeof message?.method === 'string' && message.id !== undefined && message.method !== 'tools/call')
}

/**
 * The handlers after authentication: the body, its rate-limit token, then the request's MCP server answering it.
 * A request besides tool calls takes one token here, as a REST request would; a tool call takes its own when it
 * runs, so that a refused one is the tool's error result.
 */
export function mcpHandlers(options: McpOptions): RequestHandler[] {
  const { routes, ...rest } = options
  const serverOptions: McpServerOptions = { ...rest, tools: offeredTools(routes) }
  const limit: RequestHandler = (req, res, next) => (asksBesidesTools(req.body) ? options.rateLimiter(req, res, next) : next())
  const answer: RequestHandler = async (req, res) => {
    res.locals.template = 'mcp'
    const server = createMcpServer(serverOptions, req, res)
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.once('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, req.body)
  }
  return [express.json({ limit: MAX_MCP_BYTES }), limit, answer]
}

/** GET and DELETE /mcp: no sessions to stream or end. */
export const mcpMethodNotAllowed: RequestHandler = (_req, res) => {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless (POST only)' }, id: null })
}
