"""The Python face of the benchmarks (test/bench/python.ts), as a pipeline runs a Python program.

``bench_up.py init``: the set-up of a new stack, untimed, as the YAML face's is: the Automation
API creates the stack ``bench`` of an inline program in the work directory ``BENCH_WORK_DIR`` and
puts the tenant of ``TENANT_DOMAIN``, ``TENANT_CLIENT_ID`` and ``TENANT_CLIENT_SECRET`` in its
config (the secret encrypted).

``bench_up.py up``: the timed run, as each later run of a pipeline is: it selects the stack and runs
one ``up`` of a program that declares one ``ClientSettings`` per entry of the JSON file
``BENCH_CLIENTS`` names (``client-<i>``, as the TypeScript and YAML bench programs name them).

Each prints one line of JSON: for ``up``, the engine's summary of changes and where the run's time
went (Python's start with the imports of Pulumi's SDK and of the provider's, the stack's selection,
the program's declarations and ``up`` itself, with the CLI runs the Automation API makes after it).

The program is ``async`` and yields after each declaration, as CONTRIBUTING.md's part on speed
advises: a synchronous program holds Python's event loop until it returns, so no registration
reaches the engine (and the provider plugin does not start) before the last resource is declared.
"""

import time

STARTED = time.monotonic()

import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

import pulumi_tenant as tenant  # noqa: E402
from pulumi import automation as auto  # noqa: E402

IMPORTED = time.monotonic()

STACK = "bench"
PROJECT = "tenant-bench-python"

# When the program started and ended its declarations, for the phases.
PROGRAM_MARKS: dict[str, float] = {}


async def program() -> None:
    """One ``ClientSettings`` per client of ``BENCH_CLIENTS``, yielding to the event loop after
    each, so that each registration leaves while the next resources are declared."""
    PROGRAM_MARKS["start"] = time.monotonic()
    with open(os.environ["BENCH_CLIENTS"], encoding="utf-8") as file:
        clients = json.load(file)
    for i, client in enumerate(clients):
        tenant.ClientSettings(
            f"client-{i}", client_id=client["clientId"], description=client["description"]
        )
        await asyncio.sleep(0)
    PROGRAM_MARKS["end"] = time.monotonic()


def workspace() -> auto.LocalWorkspaceOptions:
    """The workspace both commands share: the stack's config lives in its work directory."""
    return auto.LocalWorkspaceOptions(
        work_dir=os.environ["BENCH_WORK_DIR"],
        secrets_provider="passphrase",
    )


def init() -> dict[str, object]:
    """Makes the stack and puts the tenant's settings in its config."""
    stack = auto.create_stack(STACK, project_name=PROJECT, program=program, opts=workspace())
    stack.set_all_config(
        {
            "tenant:domain": auto.ConfigValue(os.environ["TENANT_DOMAIN"]),
            "tenant:clientId": auto.ConfigValue(os.environ["TENANT_CLIENT_ID"]),
            "tenant:clientSecret": auto.ConfigValue(
                os.environ["TENANT_CLIENT_SECRET"], secret=True
            ),
        }
    )
    return {"stack": STACK}


def up() -> dict[str, object]:
    """Selects the stack and runs ``up``; returns the summary of changes and the phases."""
    phases = {"importSeconds": IMPORTED - STARTED}
    mark = time.monotonic()
    stack = auto.select_stack(STACK, project_name=PROJECT, program=program, opts=workspace())
    phases["stackSeconds"] = time.monotonic() - mark
    mark = time.monotonic()
    # As examples/python/main.py: the summary's config stays encrypted (one CLI run fewer derives
    # the passphrase's key).
    result = stack.up(on_output=lambda line: print(line, file=sys.stderr), show_secrets=False)
    phases["upSeconds"] = time.monotonic() - mark
    phases["declareSeconds"] = PROGRAM_MARKS["end"] - PROGRAM_MARKS["start"]
    # The CLI's JSON gives the operations as plain strings: OpType takes both.
    summary = result.summary.resource_changes or {}
    changes = {auto.OpType(op).value: n for op, n in summary.items()}
    return {"changes": changes, "phases": phases}


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) == 2 else ""
    if command not in ("init", "up"):
        print("usage: bench_up.py init|up", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(init() if command == "init" else up()))
