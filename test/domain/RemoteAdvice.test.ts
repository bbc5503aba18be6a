/** The destination doctor reads from an ssh command line, and the advice for remote and container programs. */
import { describe, expect, it } from "vitest"
import { installOverSsh, remoteAdvice, sshDestination } from "../../src/domain/tmux/RemoteAdvice.js"

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
