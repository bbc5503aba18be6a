/**
 * McpHarness — the server the CLI uses (makeServer), connected to the SDK's real `Client` over
 * `InMemoryTransport`, with the backend services supplied by any Layer (fakes, or the real
 * CommandRunnerLive over a fake terminal). Tool calls run through a ManagedRuntime of that layer.
 */
import {
  Client,
  type ElicitRequest,
  type ElicitResult,
  InMemoryTransport
} from "@modelcontextprotocol/client"
import type { Server } from "@modelcontextprotocol/server"
import { Effect, type Layer, ManagedRuntime } from "effect"
import { makeServer, type ServerOptions } from "../../src/tools/Server.js"
import type { ToolServices } from "../../src/tools/Tool.js"

export interface McpHarness<R = ToolServices> {
  readonly client: Client
  readonly server: Server
  /** Run an effect against the same services the tools use (e.g. a fake's driver). */
  readonly runPromise: <A, E>(effect: Effect.Effect<A, E, R>) => Promise<A>
  /** Close client and server, then dispose the runtime (finalizing the layer). */
  readonly close: () => Promise<void>
}

/** How the test client answers `elicitation/create` (declaring the capability); absent: not declared. */
export type ElicitHandler = (request: ElicitRequest) => Promise<ElicitResult>

/** A real SDK client named `termpilot-test-client`, declaring elicitation when `elicit` is given. */
export const testClient = (elicit?: ElicitHandler): Client => {
  const info = { name: "termpilot-test-client", version: "0.0.0" }
  if (elicit === undefined) return new Client(info)
  const client = new Client(info, { capabilities: { elicitation: {} } })
  client.setRequestHandler("elicitation/create", (request) => elicit(request))
  return client
}

export const openMcpHarness = async <R, E>(
  layer: Layer.Layer<R | ToolServices, E>,
  options: ServerOptions = {},
  elicit?: ElicitHandler
): Promise<McpHarness<R | ToolServices>> => {
  const runtime = ManagedRuntime.make(layer)
  await runtime.context() // build the layer now, so a broken layer fails here, not in a tool call
  const server = makeServer(
    (effect, signal) => runtime.runPromiseExit(effect, signal === undefined ? undefined : { signal }),
    options
  )
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  await server.connect(serverTransport)
  const client = testClient(elicit)
  await client.connect(clientTransport)
  return {
    client,
    server,
    runPromise: (effect) => runtime.runPromise(effect),
    close: async () => {
      await client.close()
      await server.close()
      await runtime.dispose()
    }
  }
}

/** The harness as a scoped resource, for `it.effect` tests. */
export const mcpHarness = <R, E>(layer: Layer.Layer<R | ToolServices, E>, options: ServerOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => openMcpHarness(layer, options)),
    (harness) => Effect.promise(() => harness.close())
  )
