/** The destination doctor reads from an ssh command line, the advice for remote and container programs, and for a shell without the snippet that a refusal names. */
import { describe, expect, it } from "vitest"
import {
  innerShellAdvice,
  installOverSsh,
  remoteAdvice,
  sshDestination,
  sshTarget
} from "../../src/domain/tmux/RemoteAdvice.js"

describe("sshDestination", () => {
  it.each([
    [["build-box"], "build-box"],
    [["-p", "2222", "-l", "deploy", "build-box", "uptime"], "build-box"],
    [["-tt", "-p2222", "deploy@build-box"], "deploy@build-box"],
    [["-o", "SendEnv=LC_*", "-i", "/k", "-J", "jump", "db"], "db"],
    [["-4Avp", "22", "host"], "host"],
    [["--", "-weird-host"], "-weird-host"],
    [["-p", "22"], null]
  ])("%j → %s", (argv, host) => {
    expect(sshDestination(argv)).toBe(host)
  })
})

describe("remoteAdvice", () => {
  it("gives the install line for ssh, LC_TERMPILOT for containers, nothing for other programs", () => {
    expect(remoteAdvice("ssh", ["-p", "2222", "build-box"])).toContain(installOverSsh("build-box"))
    expect(remoteAdvice("mosh-client", ["1.2.3.4", "60001"])).toContain(installOverSsh("HOST"))
    expect(remoteAdvice("docker", ["exec", "-it", "app", "bash"])).toContain(
      "docker exec -it -e LC_TERMPILOT"
    )
    expect(remoteAdvice("kubectl", ["exec", "-it", "pod", "--", "bash"])).toContain(
      'env LC_TERMPILOT="$LC_TERMPILOT"'
    )
    expect(remoteAdvice("vim", ["notes.txt"])).toBeNull()
  })
})

describe("sshTarget", () => {
  it.each([
    [["build-box"], "build-box"],
    [["-q", "-tt", "-i", "/k", "-p", "2222", "root@127.0.0.1"], "-p 2222 root@127.0.0.1"],
    [["-p2222", "-l", "deploy", "-J", "jump", "db", "uptime"], "-p 2222 -l deploy -J jump db"],
    [["-p", "22;rm", "host"], "host"],
    [["-p", "22"], null]
  ])("%j → %s", (argv, target) => {
    expect(sshTarget(argv)).toBe(target)
  })
})

describe("innerShellAdvice", () => {
  it("names ssh and its host, with the install line for that host", () => {
    const advice = innerShellAdvice("ssh", ["-tt", "-p", "2222", "tc-plain"])
    expect(advice).toMatch(/^the inner shell \(ssh to tc-plain\) has no TermPilot snippet: /)
    expect(advice).toContain(`\`${installOverSsh("-p 2222 tc-plain")}\``)
    expect(innerShellAdvice("ssh", null)).toContain(installOverSsh("HOST"))
    expect(innerShellAdvice("mosh-client", ["1.2.3.4", "60001"])).toMatch(/^the inner shell \(mosh\)/)
  })

  it("names a nested shell and how to load the snippet in it; sh has none", () => {
    expect(innerShellAdvice("bash", ["--norc", "-i"])).toMatch(
      /^the inner shell \(bash\) has no TermPilot snippet: .*`eval "\$\(termpilot shell-integration bash\)"`/
    )
    expect(innerShellAdvice("fish", [])).toContain("termpilot shell-integration fish | source")
    expect(innerShellAdvice("dash", [])).toContain("TermPilot has no snippet for dash")
    expect(innerShellAdvice("docker", ["exec", "-it", "app", "bash"])).toContain(
      "docker exec -it -e LC_TERMPILOT CONTAINER bash"
    )
    expect(innerShellAdvice("sudo", ["-i"])).toMatch(/^the inner shell \(sudo\) .*shell it opened/)
  })
})
