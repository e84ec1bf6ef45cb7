"""The Python face of the benchmarks (test/bench/python.ts): one ``up`` of a program that declares
one ``ClientSettings`` per entry of the JSON file ``BENCH_CLIENTS`` names (``client-<i>``, as the
TypeScript and YAML bench programs name them), run as an inline program of the Automation API
against the tenant of ``TENANT_DOMAIN``, ``TENANT_CLIENT_ID`` and ``TENANT_CLIENT_SECRET``. Prints
one line of JSON: the engine's summary of changes.
"""

import json
import os
import sys
import tempfile

import pulumi_tenant as tenant
from pulumi import automation as auto


def program() -> None:
    with open(os.environ["BENCH_CLIENTS"], encoding="utf-8") as file:
        clients = json.load(file)
    for i, client in enumerate(clients):
        tenant.ClientSettings(
            f"client-{i}", client_id=client["clientId"], description=client["description"]
        )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tenant-bench-python-") as work_dir:
        stack = auto.create_or_select_stack(
            "bench",
            project_name="tenant-bench-python",
            program=program,
            opts=auto.LocalWorkspaceOptions(work_dir=work_dir, secrets_provider="passphrase"),
        )
        stack.set_all_config(
            {
                "tenant:domain": auto.ConfigValue(os.environ["TENANT_DOMAIN"]),
                "tenant:clientId": auto.ConfigValue(os.environ["TENANT_CLIENT_ID"]),
                "tenant:clientSecret": auto.ConfigValue(
                    os.environ["TENANT_CLIENT_SECRET"], secret=True
                ),
            }
        )
        up = stack.up(on_output=lambda line: print(line, file=sys.stderr))
        changes = {op.value: n for op, n in (up.summary.resource_changes or {}).items()}
        print(json.dumps({"changes": changes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
