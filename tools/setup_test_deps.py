"""Install the system packages the test suite drives (run by the README's
test command, and so by .ci/run): Debian's chromium for the rulebook's
browser test, a CJK font so its screenshots show the Chinese text,
Debian's nodejs for the JavaScript scorers' tests and its node-typescript
for their types.

Installs only what is missing, with apt-get, when it can (root, or sudo
without a password). Where it cannot, it says which package is missing and
exits 0: the tests that need it are then skipped with a message naming it.
Usage: python tools/setup_test_deps.py [--check]"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

# (what is checked, the Debian package that provides it, what needs it)
NEEDS = [
    ("/usr/bin/chromium", "chromium", "the rulebook's browser test (tests/test_browser.py)"),
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", "fonts-wqy-zenhei", "Chinese text in the browser test's screenshots"),
    ("/usr/bin/node", "nodejs", "the JavaScript scorers' tests under node (tests/test_js.py)"),
    ("/usr/bin/tsc", "node-typescript", "the JavaScript scorer's types under TypeScript (tests/test_js.py)"),
    ("/usr/lib/postgresql", "postgresql", "the tables on a real PostgreSQL (tests/test_tables_postgres.py)"),
]


def missing() -> list[tuple[str, str, str]]:
    return [n for n in NEEDS if not os.path.exists(n[0])]


def _apt(args: list[str]) -> bool:
    cmd = ["apt-get", *args]
    if os.geteuid() != 0:
        if not shutil.which("sudo"):
            return False
        cmd = ["sudo", "-n", *cmd]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        return subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=1800).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def main(argv: list[str]) -> int:
    todo = missing()
    if not todo:
        print("test dependencies: all present")
        return 0
    if "--check" in argv or not shutil.which("apt-get"):
        for path, pkg, why in todo:
            print(f"test dependencies: missing Debian package {pkg} ({path}), for {why}")
        return 0
    pkgs = sorted({pkg for _, pkg, _ in todo})
    print("test dependencies: installing " + " ".join(pkgs) + " with apt-get …", flush=True)
    ok = _apt(["install", "-y", "--no-install-recommends", *pkgs]) or (_apt(["update"]) and _apt(
        ["install", "-y", "--no-install-recommends", *pkgs]))
    for path, pkg, why in missing():
        print(f"test dependencies: could not install Debian package {pkg}; {why} will be skipped")
    if ok and not missing():
        print("test dependencies: installed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
