"""The Python face of the benchmarks (test/bench/python.ts): one ``up`` of a program that declares
one ``ClientSettings`` per entry of the JSON file ``BENCH_CLIENTS`` names (``client-<i>``, as the
TypeScript and YAML bench programs name them), run as an inline program of the Automation API
against the tenant of ``TENANT_DOMAIN``, ``TENANT_CLIENT_ID`` and ``TENANT_CLIENT_SECRET``. Prints
one line of JSON: the engine's summary of changes, and where the run's time went (the imports of
Pulumi's SDK and of the provider's, the Automation API's stack selection and config, and ``up``).
"""

import time

STARTED = time.monotonic()

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

import pulumi_tenant as tenant  # noqa: E402
from pulumi import automation as auto  # noqa: E402

IMPORTED = time.monotonic()


def program() -> None:
    with open(os.environ["BENCH_CLIENTS"], encoding="utf-8") as file:
        clients = json.load(file)
    for i, client in enumerate(clients):
        tenant.ClientSettings(
            f"client-{i}", client_id=client["clientId"], description=client["description"]
        )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tenant-bench-python-") as work_dir:
        phases = {"importSeconds": IMPORTED - STARTED}
        mark = time.monotonic()
        stack = auto.create_or_select_stack(
            "bench",
            project_name="tenant-bench-python",
            program=program,
            opts=auto.LocalWorkspaceOptions(work_dir=work_dir, secrets_provider="passphrase"),
        )
        phases["stackSeconds"] = time.monotonic() - mark
        mark = time.monotonic()
        stack.set_all_config(
            {
                "tenant:domain": auto.ConfigValue(os.environ["TENANT_DOMAIN"]),
                "tenant:clientId": auto.ConfigValue(os.environ["TENANT_CLIENT_ID"]),
                "tenant:clientSecret": auto.ConfigValue(
                    os.environ["TENANT_CLIENT_SECRET"], secret=True
                ),
            }
        )
        phases["configSeconds"] = time.monotonic() - mark
        mark = time.monotonic()
        up = stack.up(on_output=lambda line: print(line, file=sys.stderr))
        phases["upSeconds"] = time.monotonic() - mark
        # The CLI's JSON gives the operations as plain strings: OpType takes both.
        summary = up.summary.resource_changes or {}
        changes = {auto.OpType(op).value: n for op, n in summary.items()}
        print(json.dumps({"changes": changes, "phases": phases}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
