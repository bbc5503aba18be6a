/**
 * The floor TermPilot's start-up and memory are judged against: a bare MCP SDK stdio server with
 * one tool and nothing else, served like TermPilot (the SDK's `serveStdio`, both protocol eras).
 * The bench bundles it like TermPilot's bin and spawns it the same way.
 */
import { Server } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"

serveStdio(() => {
  const server = new Server({ name: "bare", version: "0.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler("tools/list", async () => ({
    tools: [
      {
        name: "echo",
        description: "Echoes its text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
      }
    ]
  }))
  server.setRequestHandler("tools/call", async (request) => ({
    content: [{ type: "text", text: String(request.params.arguments?.text ?? "") }]
  }))
  return server
})
