"""Safe defaults: DEBUG off unless asked for, no shared secret key, the
security headers on every page, and `check --deploy` clean under the
production environment the README gives."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tests.once import ONCE

ROOT = Path(__file__).resolve().parents[2]

SETTINGS = """
import json
from django.conf import settings
print(json.dumps({"DEBUG": settings.DEBUG, "SECRET_KEY": settings.SECRET_KEY,
                  "SESSION_COOKIE_SECURE": settings.SESSION_COOKIE_SECURE,
                  "EMAIL": settings.CITEGUARD["EMAIL_CONFIGURED"]}))
"""

# The production recipe of the README's Production section.
PRODUCTION = {
    "DEBUG": "0", "ALLOWED_HOSTS": "citeguard.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://citeguard.example.org",
    "SECURE_HSTS_SECONDS": "31536000", "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
}


def manage(var_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120, env={"PATH": "/usr/bin:/bin", "CITEGUARD_VAR_DIR": str(var_dir),
                          "DJANGO_SETTINGS_MODULE": "reviewer.settings", "LOG_LEVEL": "WARNING",
                          **env},
    )


def read_settings(var_dir: Path, **env: str) -> dict[str, object]:
    result = manage(var_dir, "shell", "--no-imports", "-c", SETTINGS, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@ONCE  # its own process and var folder, whatever the pass
def test_debug_is_off_unless_asked_for_and_the_dev_key_is_random_and_kept(
    tmp_path: Path,
) -> None:
    plain = read_settings(tmp_path, SECRET_KEY="k" * 60)
    assert plain["DEBUG"] is False and plain["SESSION_COOKIE_SECURE"] is True
    assert plain["EMAIL"] is False  # no password reset without a way to send it

    first = read_settings(tmp_path, DEBUG="1", EMAIL_HOST="smtp.example.org")
    assert first["EMAIL"] is True
    assert first["DEBUG"] is True
    key = first["SECRET_KEY"]
    assert isinstance(key, str) and len(key) >= 50
    assert (tmp_path / "secret_key").read_text() == key  # kept: sessions survive a restart
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # readable by its owner only
    assert read_settings(tmp_path, DEBUG="1")["SECRET_KEY"] == key


@ONCE  # its own process and var folder, whatever the pass
def test_without_a_secret_key_production_refuses_to_serve(tmp_path: Path) -> None:
    served = subprocess.run(
        [sys.executable, "-c", "import reviewer.wsgi"], cwd=ROOT, capture_output=True,
        text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "CITEGUARD_VAR_DIR": str(tmp_path), "DEBUG": "0"})
    assert served.returncode != 0
    assert "The SECRET_KEY setting must not be empty" in served.stderr
    assert not (tmp_path / "secret_key").exists()  # never generated with DEBUG off


@ONCE  # its own process and var folder, whatever the pass
def test_check_deploy_is_clean_under_the_production_recipe(tmp_path: Path) -> None:
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING",
                    SECRET_KEY=secrets.token_urlsafe(50), **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


@ONCE  # its own process and var folder, whatever the pass
def test_check_deploy_names_what_the_demo_settings_lack(tmp_path: Path) -> None:
    """The same check fails loudly on the development settings (it is not vacuous)."""
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", DEBUG="1")
    assert result.returncode != 0
    assert "security.W018" in result.stderr  # DEBUG on


@pytest.mark.django_db
def test_pages_carry_the_content_security_policy_and_refuse_framing(client: Client) -> None:
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert response["X-Frame-Options"] == "DENY"
    policy = response["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    nonce = directives["script-src"].split("'nonce-")[1].split("'")[0]
    assert directives["script-src"] == f"'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"
    assert directives["worker-src"] == "'self' blob:"
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
    # htmx's script tag and its indicator style carry this response's nonce.
    html = response.content.decode()
    assert f'nonce="{nonce}"' in html and f'"inlineStyleNonce": "{nonce}"' in html
    assert client.get("/accounts/login/")["Content-Security-Policy"] != policy  # per response
