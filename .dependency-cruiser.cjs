/**
 * The direction of TermPilot's imports (docs/ARCHITECTURE.md), checked by dependency-cruiser:
 * `npm run lint:deps` (part of `npm test`). Downwards only:
 *
 *   src/cli -> src/layers/app (the composition root)
 *     -> src/tools and src/layers/{runner,approval,config,audit,tunnel,backends}, side by side
 *       -> src/services (contracts) -> src/domain (pure rules) -> src/generated/iterm2 (lowest)
 *
 * plus the leaves src/installation (where the package lives), src/launcher (the bin) and
 * src/shell-integration (the snippets' text). Type-only imports count: a layer that names a type
 * of the layer above it depends on it as much as one that calls it.
 */

/** A path pattern for one of src/'s folders, by name. */
const SRC = (folders) => `^src/(${folders.join("|")})/`

/** Every kind of npm dependency dependency-cruiser tells apart. */
const NPM = ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-bundled", "npm-no-pkg", "npm-unknown"]

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "A cycle makes its modules one unit: none can be understood, tested or moved alone, and the " +
        "load order decides which sees the other half-initialised. Break it by moving what both need " +
        "one level down (a type into src/domain or src/services, bench's shared types into their own file).",
      severity: "error",
      from: { path: "^(src|bench)/" },
      to: { circular: true }
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to no file: a typo, or a module that moved without its importers.",
      severity: "error",
      from: { path: "^(src|bench)/" },
      to: { couldNotResolve: true }
    },
    {
      name: "src-not-to-tests",
      comment: "What ships must not import the tests, the bench or the scripts: they are not in the package.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|scripts|proto)/" }
    },

    // ---- The direction of the layers ----
    {
      name: "domain-only-downwards",
      comment:
        "src/domain is the pure core: it knows no contract, no implementation, no tool and no entry " +
        "point. What it needs of a model (Readiness, SessionInfo, TermPilotError…) is defined in " +
        "src/domain and re-exported by the contracts in src/services, not the other way round.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: {
        path: SRC(["services", "layers", "tools", "cli", "launcher", "shell-integration", "installation"])
      }
    },
    {
      name: "domain-no-node-builtins",
      comment:
        "src/domain is pure: no I/O, no clock, no randomness, no process. Node's modules (node:crypto " +
        "included: a digest src/domain needs is in src/domain/Sha256.ts; a keyed one is the caller's) " +
        "belong in src/layers or at the tools' edge.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { dependencyTypes: ["core"] }
    },
    {
      name: "domain-only-effect",
      comment:
        "src/domain depends on no npm package but effect (Schema, Data) and @noble/hashes (a pure, " +
        "audited SHA-256 for src/domain/Sha256.ts): not @effect/platform-node, not the MCP SDK, not " +
        "ws, node-pty or protobufjs, which all do I/O or speak a wire format.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { dependencyTypes: NPM, pathNot: "(^|/)node_modules/(effect|@noble/hashes)/" }
    },
    {
      name: "services-only-downwards",
      comment:
        "src/services holds the contracts: they are written in terms of src/domain's models only, " +
        "never in terms of an implementation (src/layers), a tool or the command line.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: SRC(["layers", "tools", "cli", "launcher", "shell-integration", "installation"]) }
    },
    {
      name: "services-only-effect",
      comment:
        "The contracts are types and Context tags: they use no Node module and no npm package but " +
        "effect, so a contract never drags an implementation's platform into its callers.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { dependencyTypes: ["core", ...NPM], pathNot: "(^|/)node_modules/effect/" }
    },
    {
      name: "tools-know-only-contracts",
      comment:
        "A tool asks for a service (src/services) and src/layers/app provides the implementation: a " +
        "tool that imports a layer would run that implementation whatever the composition root chose " +
        "(a test's fake, read-only mode, another backend).",
      severity: "error",
      from: { path: "^src/tools/" },
      to: { path: SRC(["layers", "cli", "launcher", "shell-integration"]) }
    },
    {
      name: "layers-not-to-tools-or-cli",
      comment:
        "The implementations know nothing of the MCP surface or the command line: only the " +
        "composition root (src/layers/app) may wire tools, and only src/cli is the entry.",
      severity: "error",
      from: { path: "^src/layers/", pathNot: "^src/layers/app/" },
      to: { path: SRC(["tools", "cli"]) }
    },
    {
      name: "layers-not-up-to-app",
      comment:
        "src/layers/app is the composition root, above every other layer: a layer that imports it " +
        "depends on the whole program's wiring.",
      severity: "error",
      from: { path: "^src/layers/", pathNot: "^src/layers/app/" },
      to: { path: "^src/layers/app/" }
    },
    {
      name: "approval-below-runner",
      comment:
        "The runner asks the approval gate before it types (run_command, interrupt_command, " +
        "send_keys): the gate must not reach back up into the runner. What both need (the waits " +
        "held to the call) is in src/services/CallWaits.ts.",
      severity: "error",
      from: { path: "^src/layers/approval/" },
      to: { path: "^src/layers/runner/" }
    },
    {
      name: "app-not-to-cli",
      comment: "The composition root is wired by the command line (src/cli), not the other way round.",
      severity: "error",
      from: { path: "^src/layers/app/" },
      to: { path: "^src/cli/" }
    },
    {
      name: "only-cli-imports-cli",
      comment: "src/cli is the entry point: nothing below it may import it.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/cli/" },
      to: { path: "^src/cli/" }
    },
    {
      name: "generated-is-lowest",
      comment:
        "src/generated is written by proto/codegen.mjs and never edited: it imports nothing of ours, " +
        "so regenerating it can break no import.",
      severity: "error",
      from: { path: "^src/generated/" },
      to: { path: "^src/", pathNot: "^src/generated/" }
    },

    // ---- The iTerm2 wire format stays in the iTerm2 backend ----
    {
      name: "protobuf-only-in-iterm2-backend",
      comment:
        "Protobuf is iTerm2's wire format: only src/layers/backends/iterm2/ (Codec.ts) encodes and " +
        "decodes it. protobufjs and the generated codec (Iterm2Static.ts) anywhere else would spread " +
        "the wire format into code that should see plain messages.",
      severity: "error",
      from: { path: "^(src|bench)/", pathNot: "^src/(layers/backends/iterm2|generated/iterm2)/" },
      to: { path: ["(^|/)node_modules/protobufjs/", "^src/generated/iterm2/Iterm2Static\\.ts$"] }
    },
    {
      name: "iterm2-messages-only-iterm2",
      comment:
        "src/generated/iterm2/Iterm2Messages.ts holds the iTerm2 messages as plain TypeScript shapes: " +
        "for the iTerm2 backend and its pure rules (src/domain/iterm2/) only. Contracts and tools stay " +
        "backend-independent.",
      severity: "error",
      from: {
        path: "^(src|bench)/",
        pathNot: "^src/(layers/backends/iterm2|domain/iterm2|generated/iterm2)/"
      },
      to: { path: "^src/generated/iterm2/Iterm2Messages\\.ts$" }
    },

    // ---- The leaves ----
    {
      name: "launcher-node-builtins-only",
      comment:
        "src/launcher is the published bin: it runs before the bundle, on any Node, so it may use " +
        "Node's built-in modules, its own folder and the one pure Node-version rule " +
        "(src/domain/HealthCheck.ts), nothing else.",
      severity: "error",
      from: { path: "^src/launcher/" },
      to: { dependencyTypesNot: ["core"], pathNot: ["^src/launcher/", "^src/domain/HealthCheck\\.ts$"] }
    },
    {
      name: "launcher-reaches-no-package",
      comment:
        "Not even through src/domain/HealthCheck.ts may the bin reach an npm package: it is bundled " +
        "on its own (scripts/bundle.mjs) and must stay a few kilobytes of Node built-ins.",
      severity: "error",
      from: { path: "^src/launcher/" },
      to: { path: "(^|/)node_modules/", reachable: true }
    },
    {
      name: "only-the-bin-is-the-launcher",
      comment: "src/launcher is an entry point of its own: nothing in src imports it.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/launcher/" },
      to: { path: "^src/launcher/" }
    },
    {
      name: "shell-integration-is-text",
      comment:
        "src/shell-integration holds the bash, zsh and fish snippets as text: it imports nothing " +
        "outside its own folder, so what `termpilot shell-integration` prints depends on nothing else.",
      severity: "error",
      from: { path: "^src/shell-integration/" },
      to: { pathNot: "^src/shell-integration/" }
    },
    {
      name: "installation-is-a-leaf",
      comment:
        "src/installation (where this installation lives: its package.json, version and bin) is read " +
        "by the command line, the composition root, the tools and the iTerm2 backend: it uses Node's " +
        "built-in modules only and imports nothing of ours.",
      severity: "error",
      from: { path: "^src/installation/" },
      to: { dependencyTypesNot: ["core"], pathNot: "^src/installation/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^dist/" },
    // NodeNext: imports name the .js file and resolve to the .ts source.
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"]
    },
    skipAnalysisNotInRules: true
  }
}
