/**
 * The floor TermPilot's start-up and memory are judged against: a bare MCP SDK stdio server with
 * one tool and nothing else. The bench bundles it like TermPilot's bin and spawns it the same way.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const server = new Server({ name: "bare", version: "0.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "echo",
      description: "Echoes its text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
    }
  ]
}))
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: "text", text: String(request.params.arguments?.text ?? "") }]
}))
await server.connect(new StdioServerTransport())
