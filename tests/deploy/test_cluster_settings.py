"""`check --deploy` has nothing to say under the environment every process of
deploy/cluster.py runs with: the loopback cluster runs production's
hardening (nginx terminates TLS with a self-signed certificate), not a
relaxed copy of it. The check reads settings only: no service is started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deploy import cluster, recipe
from tests.once import ONCE

pytestmark = ONCE


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level",
                           "WARNING"], cwd=recipe.ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_check_deploy_is_clean_under_the_clusters_environment(tmp_path: Path) -> None:
    env = cluster.cluster_env(tmp_path, "postgres://postgres@127.0.0.1:5432/citeguard_cluster_x",
                              "redis://127.0.0.1:6390/0", "http://127.0.0.1:9000")
    assert (env["DEBUG"], env["CITEGUARD_TASKS"], env["CITEGUARD_STORAGE"],
            env["CITEGUARD_CACHE"]) == ("0", "redis", "s3", "redis")
    result = check_deploy(env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout

    # Not vacuous: the single-host recipe's loopback relaxation is named.
    relaxed = check_deploy({**env, "SECURE_SSL_REDIRECT": "0"})
    assert relaxed.returncode != 0
    assert "security.W008" in relaxed.stderr
