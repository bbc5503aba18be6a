/**
 * RemoteAdvice — what `termpilot doctor` tells a person whose pane runs ssh, mosh or a container
 * exec, pure: the one line that installs TermPilot's snippet on that host (from the client's own
 * argv: the host is its first operand), or how to carry LC_TERMPILOT into a container; and what a
 * refusal says of a shell that ssh, a container exec or a nested shell opened without the snippet
 * (`innerShellAdvice`: the program, the host, and what to install where).
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

/** Option values copied into an install line only when they are plainly a port, user or host. */
const PLAIN_VALUE = /^[A-Za-z0-9._@:%+-]+$/

/**
 * Where an ssh command line (`argv` after the program) logs in, as `ssh` arguments: the
 * destination, after the port (`-p`), login name (`-l`) and jump host (`-J`) it gives; null when
 * there is no destination.
 */
export const sshTarget = (argv: ReadonlyArray<string>): string | null => {
  const host = sshDestination(argv)
  if (host === null) return null
  const options: Array<string> = []
  for (let i = 0; i < argv.length && argv[i] !== host; i++) {
    const arg = argv[i]!
    const option = /^-([plJ])(.*)$/.exec(arg)
    if (option === null) continue
    const value = option[2] !== "" ? option[2]! : (argv[++i] ?? "")
    if (PLAIN_VALUE.test(value)) options.push(`-${option[1]} ${value}`)
  }
  return [...options, host].join(" ")
}

/** Shells TermPilot has a snippet for, and the line that loads it in one that is running. */
const LOAD_IN_SHELL: Readonly<Record<string, string>> = {
  bash: 'eval "$(termpilot shell-integration bash)"',
  zsh: 'eval "$(termpilot shell-integration zsh)"',
  fish: "termpilot shell-integration fish | source"
}

/** The program that carries a person to another shell, as advice names it: `ssh to build-box`, `bash`. */
export const innerShellName = (program: string, argv: ReadonlyArray<string> | null): string => {
  const host = REMOTE_PROGRAMS.has(program) && argv !== null ? sshDestination(argv) : null
  return program === "mosh-client" ? "mosh" : host === null ? program : `${program} to ${host}`
}

/**
 * Why a shell that `program` (with `argv`, when read) opened cannot take commands, and what to
 * install where: its output came with no TermPilot mark, so it has no snippet (or it has one and
 * is running a command, or `program` opened no shell).
 */
export const innerShellAdvice = (program: string, argv: ReadonlyArray<string> | null): string => {
  const name = innerShellName(program, argv)
  const install = (() => {
    if (REMOTE_PROGRAMS.has(program)) {
      const target = program.startsWith("mosh") || argv === null ? null : sshTarget(argv)
      return `install it on that host from this machine: \`${installOverSsh(target ?? "HOST")}\`, then log in again`
    }
    if (CONTAINER_PROGRAMS.has(program))
      return `pass the pane's LC_TERMPILOT into the container (${program === "kubectl" || program === "oc" ? `${program} exec -it POD -- env LC_TERMPILOT="$LC_TERMPILOT" bash` : `${program} exec -it -e LC_TERMPILOT CONTAINER bash`}) and source the snippet from the container's ~/.bashrc`
    const load = LOAD_IN_SHELL[program]
    if (load !== undefined)
      return `load it in that shell (type \`${load}\` there, or source the snippet from its rc file), or exit it`
    if (["sh", "dash", "ksh"].includes(program))
      return `TermPilot has no snippet for ${program}; exit it, or start bash, zsh or fish with the snippet there`
    return "load TermPilot's snippet in the shell it opened (`termpilot shell-integration bash`, zsh or fish, sourced from that shell's rc file)"
  })()
  return `the inner shell (${name}) has no TermPilot snippet: what it wrote since TermPilot started watching carried no TermPilot mark; ${install} (README, "Remote and nested shells"). If it does have the snippet and is running a command, or ${program} opened no shell, run_command works again at its next prompt`
}
