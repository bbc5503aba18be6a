/**
 * MainLive — the one composition root of the MCP server: the terminal backend (Terminal +
 * CommandRunner) on top of AppConfig and the Node platform. Logging is provided once, around the
 * whole program, by the bin entry (see Logging.ts).
 */
import { NodeContext } from "@effect/platform-node"
import type { ConfigError } from "effect"
import { Layer } from "effect"
import type { CommandRunner } from "../services/CommandRunner.js"
import type { Terminal } from "../services/Terminal.js"
import { AppConfigLive } from "./AppConfigLive.js"
import { BackendLive } from "./BackendLive.js"

export const MainLive: Layer.Layer<Terminal | CommandRunner, ConfigError.ConfigError> = BackendLive.pipe(
  Layer.provide(AppConfigLive),
  Layer.provide(NodeContext.layer)
)
