/**
 * RemoteAdvice — what `termpilot doctor` tells a person whose pane runs ssh, mosh or a container
 * exec, pure: the one line that installs TermPilot's snippet on that host (from the client's own
 * argv: the host is its first operand), or how to carry LC_TERMPILOT into a container.
 */

export const REMOTE_PROGRAMS: ReadonlySet<string> = new Set(["ssh", "mosh", "mosh-client", "autossh"])
export const CONTAINER_PROGRAMS: ReadonlySet<string> = new Set([
  "docker",
  "podman",
  "nerdctl",
  "kubectl",
  "oc"
])

/** ssh options that take a value (ssh(1)); the first other operand is the destination. */
const SSH_VALUE_OPTIONS = new Set("BbcDEeFIiJLlmOoPpQRSWw".split(""))

/** The destination of an ssh command line (`argv` after the program itself); null when none. */
export const sshDestination = (argv: ReadonlyArray<string>): string | null => {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") return argv[i + 1] ?? null
    if (arg.startsWith("-") && arg.length > 1) {
      const flags = arg.slice(1)
      for (let k = 0; k < flags.length; k++) {
        if (SSH_VALUE_OPTIONS.has(flags[k]!)) {
          if (k === flags.length - 1) i++
          break
        }
      }
      continue
    }
    return arg
  }
  return null
}

/** The one line to run locally that installs the bash snippet on `host` and sources it from its ~/.bashrc. */
export const installOverSsh = (host: string): string =>
  `termpilot shell-integration bash | ssh ${host} 'cat > ~/.termpilot-integration.bash && (grep -qs termpilot-integration ~/.bashrc || echo "source ~/.termpilot-integration.bash" >> ~/.bashrc)'`

/**
 * Advice for a pane whose foreground program is `program` with `argv` (its arguments), or null when
 * it is no remote or container program.
 */
export const remoteAdvice = (program: string, argv: ReadonlyArray<string>): string | null => {
  if (REMOTE_PROGRAMS.has(program)) {
    const host = program.startsWith("mosh") ? null : sshDestination(argv)
    return `it runs ${program}; for run_command in the shell there, load TermPilot's snippet on that host (its ssh forwards LC_TERMPILOT as LC_* by default): ${installOverSsh(host ?? "HOST")}`
  }
  if (CONTAINER_PROGRAMS.has(program))
    return `it runs ${program}; for run_command in the container's shell, pass the pane's LC_TERMPILOT in (${program === "kubectl" || program === "oc" ? 'kubectl exec -it POD -- env LC_TERMPILOT="$LC_TERMPILOT" bash' : `${program} exec -it -e LC_TERMPILOT CONTAINER bash`}) and source TermPilot's snippet from the container's ~/.bashrc`
  return null
}
