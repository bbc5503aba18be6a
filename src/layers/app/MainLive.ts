/**
 * MainLive — the one composition root of the MCP server: configuration (environment and config
 * file), the terminal backend (Terminal + CommandRunner), what the tools apply to what they return
 * (ToolSettings), and the audit trail, on the Node platform. Logging is provided once, around the
 * whole program, by the bin entry (see Logging.ts).
 *
 * The server needs only Node's file system and paths (ServerPlatform): the rest of NodeServices
 * (its Terminal loads `node:readline`, ~0.7 MB of RSS) is for the command line's subcommands.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Effect, Layer } from "effect"
import { AppConfig } from "../../services/AppConfig.js"
import { ToolSettings } from "../../services/ToolSettings.js"
import { auditLogLayer } from "../audit/AuditLogLive.js"
import { type AppConfigOptions, appConfigLayer } from "../config/AppConfigLive.js"
import { BackendLive } from "./BackendLive.js"

const ToolSettingsLive = Layer.effect(
  ToolSettings,
  Effect.map(AppConfig, ({ settings }) => ({
    redactSecrets: settings.redaction.enabled,
    deadlineMs: settings.toolDeadlineMs,
    approval: settings.approval
  }))
)

const AuditFromConfig = Layer.unwrap(
  Effect.map(AppConfig, ({ settings, auditPath }) =>
    auditLogLayer({
      enabled: settings.audit.enabled,
      path: auditPath,
      maxBytes: settings.audit.maxBytes,
      redact: settings.redaction.enabled
    })
  )
)

/** The Node services the server uses. */
const ServerPlatform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** Everything the server runs on, for a given configuration (tests pass their own). */
export const mainLayerWith = <E, R>(config: Layer.Layer<AppConfig, E, R>) =>
  Layer.mergeAll(BackendLive, ToolSettingsLive, AuditFromConfig).pipe(
    Layer.provideMerge(config),
    Layer.provide(ServerPlatform)
  )

/** Everything `termpilot` serves with; `options` carries what the command line forces. */
export const mainLive = (options: AppConfigOptions = {}) =>
  mainLayerWith(appConfigLayer(options).pipe(Layer.provide(ServerPlatform)))

export const MainLive = mainLive()
