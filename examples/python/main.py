"""A small driver that runs program.py with Pulumi's Automation API as an inline program.

The ``pulumi`` CLI on PATH talks to this process itself, so a Python program runs with no Python
language host and no Pulumi.yaml (docs/guides/languages.md, "Python"). One command a run, for a
shell or a CI job: ``preview``, ``up``, ``gate`` (the drift gate) or ``destroy``. What Pulumi prints
goes to stderr; stdout gets one line of JSON saying what the run did. Exit codes: 0 done, 1 failed,
2 a wrong command line or setting, 7 the gate found drift (the code of the CLI's own
``--expect-no-changes``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any, Optional

from pulumi import automation as auto

from program import program

# The project's name: its own config keys are ``tenant-python:<key>``.
PROJECT_NAME = "tenant-python"

# What ``gate`` exits with when the tenant differs from the stack.
EXIT_DRIFT = 7

# The tenant's settings, read from the environment and kept in the stack config under the provider
# plugin's own names (docs/installation-configuration.md, "Configuration"); the secrets are stored encrypted.
TENANT_SETTINGS: Sequence[tuple[str, str, bool]] = (
    ("TENANT_DOMAIN", "tenant:domain", False),
    ("TENANT_CLIENT_ID", "tenant:clientId", False),
    ("TENANT_CLIENT_SECRET", "tenant:clientSecret", True),
    ("TENANT_API_TOKEN", "tenant:apiToken", True),
    ("TENANT_CLIENT_ASSERTION_PRIVATE_KEY", "tenant:clientAssertionPrivateKey", True),
    ("TENANT_CLIENT_ASSERTION_SIGNING_ALG", "tenant:clientAssertionSigningAlg", False),
    ("TENANT_AUDIENCE", "tenant:audience", False),
)

# The program's own settings: which clients and which event stream it manages. Against the local
# tenant's default seed (`npx pulumi-tenant local-tenant`): PORTAL_CLIENT_ID is its web application
# "Customer Portal" (OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1), PARTNER_CLIENT_ID its third-party client
# whose security mode is "strict" (GYbdYoorpmT36DCgXSvFh0bSV7shxf65), and STALE_EVENT_STREAM_ID its
# webhook event stream (est_O84nSDdMeE4qFON6OlztEs); against your tenant, a first-party client, a
# third-party client and an event stream of yours.
PROGRAM_SETTINGS: Sequence[tuple[str, str]] = (
    ("PORTAL_CLIENT_ID", f"{PROJECT_NAME}:portalClientId"),
    ("PARTNER_CLIENT_ID", f"{PROJECT_NAME}:partnerClientId"),
    ("STALE_EVENT_STREAM_ID", f"{PROJECT_NAME}:staleEventStreamId"),
)

COMMANDS = ("preview", "up", "gate", "destroy")


class SettingError(Exception):
    """A setting the run needs is missing from the environment."""


def config_from_env(env: MutableMapping[str, str]) -> dict[str, auto.ConfigValue]:
    """The stack config from the environment: the tenant's settings that are set, and every one
    of the program's, which it requires. The tenant's settings leave the environment, so the CLI
    and the plugin, which this process starts, get them from the stack config alone (the secrets
    encrypted there)."""
    config: dict[str, auto.ConfigValue] = {}
    for name, key, secret in TENANT_SETTINGS:
        value = env.pop(name, "")
        if value:
            config[key] = auto.ConfigValue(value=value, secret=secret)
    if "tenant:domain" not in config:
        raise SettingError("TENANT_DOMAIN is not set: it names the tenant to manage")
    for name, key in PROGRAM_SETTINGS:
        if not env.get(name):
            raise SettingError(f"{name} is not set: it is the stack config's {key}")
        config[key] = auto.ConfigValue(value=env[name])
    return config


def changes(summary: Optional[Mapping[auto.OpType, int]]) -> dict[str, int]:
    """The engine's summary of changes, without the resources that stay the same. The CLI's JSON
    gives the operations as plain strings, whatever the summary's type says: ``OpType`` takes both.
    """
    counts = {auto.OpType(op): count for op, count in (summary or {}).items()}
    return {op.value: count for op, count in counts.items() if op != auto.OpType.SAME}


def shown(outputs: Mapping[str, auto.OutputValue]) -> dict[str, Any]:
    """The stack's outputs as the JSON line shows them: a secret one as ``[secret]``."""
    return {name: "[secret]" if out.secret else out.value for name, out in outputs.items()}


def to_stderr(line: str) -> None:
    """Pulumi's progress, on stderr: stdout is the JSON line's alone."""
    print(line, file=sys.stderr, flush=True)


def run(command: str, stack_name: str, refresh: bool) -> tuple[int, dict[str, Any]]:
    """Runs one command on the stack; returns the exit code and the JSON line's fields."""
    config = config_from_env(os.environ)
    result: dict[str, Any] = {"operation": command}
    # The workspace (the project's and stack's settings) lives for this run only; the state is in
    # the backend that PULUMI_BACKEND_URL names, encrypted with PULUMI_CONFIG_PASSPHRASE.
    with tempfile.TemporaryDirectory(prefix="tenant-python-") as work_dir:
        stack = auto.create_or_select_stack(
            stack_name,
            project_name=PROJECT_NAME,
            program=program,
            opts=auto.LocalWorkspaceOptions(work_dir=work_dir, secrets_provider="passphrase"),
        )
        stack.set_all_config(config)
        if command == "preview":
            preview = stack.preview(on_output=to_stderr)
            result["changes"] = changes(preview.change_summary)
        elif command == "up":
            # show_secrets=False: the summary's copy of the config stays encrypted (nothing here
            # shows it), and the CLI run that reads it does not derive the passphrase's key.
            up = stack.up(on_output=to_stderr, refresh=refresh or None, show_secrets=False)
            result["changes"] = changes(up.summary.resource_changes)
            result["outputs"] = shown(up.outputs)
        elif command == "gate":
            # `pulumi refresh --preview-only --expect-no-changes`: reads every resource and
            # changes nothing; a resource whose live value differs from the stack's fails it.
            try:
                stack.preview_refresh(expect_no_changes=True, on_output=to_stderr)
            except auto.errors.CommandError as error:
                if "no changes were expected" not in str(error):
                    raise
                result["drift"] = True
                return EXIT_DRIFT, result
            result["drift"] = False
        else:
            destroy = stack.destroy(on_output=to_stderr, show_secrets=False)
            result["changes"] = changes(destroy.summary.resource_changes)
    return 0, result


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line: ``main.py [--stack NAME] [--refresh] preview|up|gate|destroy``."""
    parser = argparse.ArgumentParser(
        prog=PROJECT_NAME, description="Runs program.py with Pulumi's Automation API."
    )
    parser.add_argument("--stack", default="dev", help="the stack to run (default: dev)")
    parser.add_argument(
        "--refresh", action="store_true", help="up: read the tenant first, so that up repairs drift"
    )
    parser.add_argument("command", choices=COMMANDS)
    args = parser.parse_args(argv)
    try:
        code, result = run(args.command, args.stack, args.refresh)
    except SettingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except auto.errors.CommandError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result), flush=True)
    if code == EXIT_DRIFT:
        print(
            "error: the tenant differs from the stack: run `up --refresh` to put it back",
            file=sys.stderr,
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
