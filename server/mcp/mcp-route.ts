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

/** The handlers after authentication: the body, then the request's MCP server answering it. */
export function mcpHandlers(options: McpOptions): RequestHandler[] {
  const { routes, ...rest } = options
  const serverOptions: McpServerOptions = { ...rest, tools: offeredTools(routes) }
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
  return [express.json({ limit: MAX_MCP_BYTES }), answer]
}

/** GET and DELETE /mcp: no sessions to stream or end. */
export const mcpMethodNotAllowed: RequestHandler = (_req, res) => {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless (POST only)' }, id: null })
}
